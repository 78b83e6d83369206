#include "analyzer/trace_mcode.h"

#include <map>

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
std::map<uint64_t, int32_t> arm64_exit_stubs(const LuaMemory &mem, const Trace &t)
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

} // namespace

int32_t snapshot_at(const Trace &t, uint32_t ofs)
{
	int32_t found = -1;
	for (size_t i = 0; i < t.snapshots.size(); i++)
		if (t.snapshots[i].mcofs <= ofs)
			found = int32_t(i);
	return found;
}

void annotate_mcode(const LuaMemory &mem, TraceSet &set, Arch arch, Disassembler &dis)
{
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
		auto stubs = arch == Arch::aarch64 ? arm64_exit_stubs(mem, t) : shared_stubs;
		for (auto &insn : dis.disassemble(t.mcode_bytes, t.mcode)) {
			McodeLine line;
			line.offset = uint32_t(insn.addr - t.mcode);
			line.size = insn.size;
			line.text = insn.text;
			for (size_t s = 0; s < t.snapshots.size(); s++)
				if (t.snapshots[s].mcofs == line.offset)
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

	// A side trace is entered from the exit of its parent that LuaJIT
	// patched: a guard in the parent whose snapshot is that exit.
	std::map<uint32_t, Trace *> by_number;
	for (auto &t : set.traces)
		by_number[t.number] = &t;
	for (auto &t : set.traces) {
		for (auto &line : t.listing) {
			if (!line.to_trace)
				continue;
			Trace *side = by_number[line.to_trace];
			if (!side || side->root == 0 || side->parent)
				continue;
			// Only a trace of the same tree can be its parent.
			uint32_t tree = t.root ? t.root : t.number;
			if (side->root != tree)
				continue;
			side->parent = t.number;
			side->parent_exit = snapshot_at(t, line.offset);
		}
	}
}

} // namespace ljcore
