#include "analyzer/traces/trace_mcode.h"

#include <map>
#include <set>

#include "analyzer/lua/luajit_arch.h"
#include "luajit/trace_layout.h"

namespace ljcore {

namespace {

// Where each exit stub is: exit number by address.
std::map<uint64_t, int32_t> x86_exit_stubs(const TraceSet &set, size_t nexits)
{
	std::map<uint64_t, int32_t> stubs;
	for (size_t g = 0; g < set.exit_stub_groups.size(); g++) {
		if (!set.exit_stub_groups[g])
			continue;
		for (uint32_t i = 0; i < LJ_EXITSTUBS_PER_GROUP; i++) {
			size_t exit = g * LJ_EXITSTUBS_PER_GROUP + i;
			if (exit < nexits)
				stubs[set.exit_stub_groups[g] + LJ_EXITSTUB_SPACING * i] =
					int32_t(exit);
		}
	}
	return stubs;
}

// arm64 traces carry their own stubs after their code.
std::map<uint64_t, int32_t> arm64_exit_stubs(const Vm &mem, const Trace &t)
{
	std::map<uint64_t, int32_t> stubs;
	uint64_t p = t.mcode + t.szmcode;
	// The padding is at most a few instructions (alignment); bound it.
	for (int i = 0; i < 16; i++) {
		auto w = mem.value<uint32_t>(p);
		if (!w || *w != LJ_A64_NOP)
			break;
		p += 4;
	}
	for (size_t e = 0; e < t.snapshots.size(); e++)
		stubs[p + 4 * (LJ_A64_EXITSTUB_HEAD + e)] = int32_t(e);
	return stubs;
}

// A side trace is entered from the exit of its parent that LuaJIT patched
// to jump to it (lj_asm_patchexit), so that exit's number is gone from the
// code. It is recovered from three facts: the parent marks the snapshot
// of that exit SNAPCOUNT_DONE (lj_trace.c), the side trace starts at the
// bytecode that snapshot resumes at, and guards are laid out in the order
// of their exits, so it lies between the exits of the guards around it.
void find_parent_exits(TraceSet &set)
{
	constexpr uint8_t snapcount_done = 255;
	std::map<uint32_t, Trace *> by_number;
	for (auto &t : set.traces)
		by_number[t.number] = &t;
	for (auto &t : set.traces) {
		uint32_t tree = t.root ? t.root : t.number;
		int32_t last = t.snapshots.empty() ? -1 : int32_t(t.snapshots.size()) - 1;
		std::vector<bool> claimed(t.snapshots.size());
		for (size_t i = 0; i < t.listing.size(); i++) {
			auto it = by_number.find(t.listing[i].to_trace);
			if (it == by_number.end())
				continue;
			Trace *side = it->second;
			// Only a side trace of the same tree can hang off this one.
			if (side->root != tree || side->parent)
				continue;
			int32_t lo = 0, hi = last;
			for (size_t j = i; j-- > 0;)
				if (t.listing[j].exit >= 0) {
					lo = t.listing[j].exit;
					break;
				}
			for (size_t j = i + 1; j < t.listing.size(); j++)
				if (t.listing[j].exit >= 0) {
					hi = t.listing[j].exit;
					break;
				}
			int32_t found = -1, candidates = 0;
			for (int32_t e = lo; e <= hi && e >= 0; e++) {
				const TraceSnapshot &s = t.snapshots[size_t(e)];
				if (s.count == snapcount_done && s.pc == side->start_pc &&
				    !claimed[size_t(e)]) {
					found = e;
					candidates++;
				}
			}
			side->parent = t.number;
			side->parent_exit = candidates == 1 ? found : -1;
			if (candidates == 1)
				claimed[size_t(found)] = true;
		}
	}
}

// The distinct exits of each trace's code: the exit stubs its guards jump
// to, and the exits patched to enter a side trace hanging off it (counted
// by their number, or by side trace when that number is not known).
void count_exits(TraceSet &set)
{
	std::map<uint32_t, const Trace *> by_number;
	for (auto &t : set.traces)
		by_number[t.number] = &t;
	for (auto &t : set.traces) {
		if (t.listing.empty())
			continue;
		std::set<int32_t> exits;
		std::set<uint32_t> unnumbered;
		for (auto &l : t.listing) {
			if (l.exit >= 0) {
				exits.insert(l.exit);
				continue;
			}
			auto it = by_number.find(l.to_trace);
			if (!l.to_trace || it == by_number.end() || it->second->parent != t.number)
				continue;
			if (it->second->parent_exit >= 0)
				exits.insert(it->second->parent_exit);
			else
				unnumbered.insert(l.to_trace);
		}
		t.exits = int32_t(exits.size() + unnumbered.size());
	}
}

} // namespace

uint32_t mcode_unit(Arch arch)
{
	return arch_info(arch).insn_unit;
}

int32_t snapshot_at(const TraceSet &set, const Trace &t, uint64_t ofs)
{
	int32_t found = -1;
	for (size_t i = 0; i < t.snapshots.size(); i++)
		if (uint64_t(t.snapshots[i].mcofs) * set.mcode_unit <= ofs)
			found = int32_t(i);
	return found;
}

void annotate_mcode(const Vm &mem, TraceSet &set, Arch arch, Disassembler &dis)
{
	set.mcode_unit = mcode_unit(arch);
	std::map<uint64_t, uint32_t> entries; // trace by the address it is entered at
	for (auto &t : set.traces)
		if (t.mcode && !t.mcode_bytes.empty())
			entries[t.mcode] = t.number;
	size_t max_exits = 0;
	for (auto &t : set.traces)
		max_exits = std::max(max_exits, t.snapshots.size());
	auto shared_stubs = x86_exit_stubs(set, max_exits);

	for (auto &t : set.traces) {
		if (t.mcode_bytes.empty())
			continue;
		auto stubs = luajit_arch(arch).exit_stubs == ExitStubs::after_trace
				     ? arm64_exit_stubs(mem, t)
				     : shared_stubs;
		for (auto &insn : dis.disassemble(t.mcode_bytes, t.mcode)) {
			McodeLine line;
			line.offset = uint32_t(insn.addr - t.mcode);
			line.size = insn.size;
			line.text = insn.text;
			for (size_t s = 0; s < t.snapshots.size(); s++)
				if (uint64_t(t.snapshots[s].mcofs) * set.mcode_unit == line.offset)
					line.snapshots.push_back(uint32_t(s));
			if (insn.branch_to) {
				uint64_t to = *insn.branch_to;
				line.target = to;
				if (auto e = stubs.find(to);
				    e != stubs.end() && size_t(e->second) < t.snapshots.size())
					line.exit = e->second;
				else if (t.mcloop && to == t.mcode + t.mcloop)
					line.to_loop = true;
				else if (auto tr = entries.find(to);
					 tr != entries.end() && tr->second != t.number)
					line.to_trace = tr->second;
			}
			t.listing.push_back(std::move(line));
		}
	}

	find_parent_exits(set);
	count_exits(set);
}

} // namespace ljcore
