#include "analyzer/locate/vm_holders.h"

#include <algorithm>
#include <array>
#include <map>
#include <set>
#include <unordered_map>

#include "analyzer/model/lua_text.h"
#include "readers/arch/arch.h"

namespace ljcore {

namespace {

constexpr uint64_t word = 8; // a pointer of the host's C code
constexpr uint64_t page = 4096;

// Where a thread holds a word: a register at a native frame, a slot of
// its stack, a word around its thread pointer; or a word of an object
// one of those points to.
struct Place {
	enum Kind { reg, stack, tls } kind = stack;
	size_t frame = 0;    // reg, stack: the native frame
	uint64_t object = 0; // the object the word is in, 0 if none
};

// A lua_State a thread holds, and the g it names.
struct Hold {
	size_t thread;
	uint64_t L, g;
	size_t reading; // index of the Reading that read it
	Place place;
};

// The layouts that read a lua_State alike (where its type and G are).
struct Reading {
	const lj_layout *first;
	std::vector<const lj_layout *> layouts;
};

std::vector<Reading> readings_of(const std::vector<const lj_layout *> &layouts)
{
	std::vector<Reading> out;
	for (const lj_layout *ly : layouts) {
		auto same = [&](const Reading &r) {
			return r.first->ptrsize == ly->ptrsize && r.first->L_glref == ly->L_glref;
		};
		auto r = std::ranges::find_if(out, same);
		if (r == out.end())
			out.push_back({ly, {ly}});
		else
			r->layouts.push_back(ly);
	}
	return out;
}

// Calls visit(address, word) for each readable word of [from, to), a
// page at a time, in place where the target can view it; pages it cannot
// read are skipped, or end the walk when stop_at_miss.
template <typename Visit>
void for_words(const Memory &mem, uint64_t from, uint64_t to, bool stop_at_miss, Visit visit)
{
	from = (from + word - 1) & ~(word - 1);
	std::array<uint64_t, page / word> buf;
	for (uint64_t at = from; at < to && at >= from;) {
		const uint64_t end = std::min(to, (at & ~(page - 1)) + page);
		const size_t n = size_t((end - at) / word);
		auto bytes = std::as_writable_bytes(std::span(buf.data(), n));
		if (n && !mem.read(at, bytes)) {
			if (stop_at_miss)
				return;
		} else {
			for (size_t i = 0; i < n; i++)
				visit(at + i * word, buf[i]);
		}
		at = end;
	}
}

class HolderSearch {
public:
	HolderSearch(const Target &target, const std::vector<NativeStack> &stacks,
		     const std::vector<const lj_layout *> &layouts, const HolderReach &reach)
	    : target_(target), stacks_(stacks), readings_(readings_of(layouts)), reach_(reach)
	{
	}

	// Every lua_State each thread holds.
	std::vector<Hold> run()
	{
		for (size_t t = 0; t < stacks_.size() && t < target_.threads().size(); t++)
			search_thread(t);
		return std::move(holds_);
	}

private:
	// The lua_States value could be, one per reading: a thread object
	// whose G is writable memory. Remembered across threads.
	const std::vector<std::pair<size_t, uint64_t>> &states_at(uint64_t value)
	{
		auto [it, fresh] = known_.try_emplace(value);
		if (!fresh)
			return it->second;
		for (size_t r = 0; r < readings_.size(); r++) {
			const lj_layout &ly = *readings_[r].first;
			auto gct = target_.read_value<uint8_t>(value + LJ_GCT_OFFSET(&ly));
			if (!gct || *gct != LJ_TTHREAD)
				continue;
			auto g = read_ref(target_, ly, value + ly.L_glref);
			if (g && *g && *g % word == 0 && target_.writable(*g))
				it->second.push_back({r, *g});
		}
		return it->second;
	}

	// A word thread t holds at place: a lua_State, or (held directly)
	// an object that may hold one.
	void consider(size_t t, uint64_t value, const Place &place)
	{
		if (!value || value % word || !target_.writable(value))
			return;
		for (auto [r, g] : states_at(value))
			holds_.push_back({t, value, g, r, place});
		if (!place.object && !in_stack(value))
			objects_.push_back({value, place});
	}

	bool in_stack(uint64_t a) const { return a >= stack_from_ && a < stack_to_; }

	void search_thread(size_t t)
	{
		const ThreadInfo &info = target_.threads()[t];
		const auto &frames = stacks_[t].frames;
		const int sp = arch_info(target_.arch()).sp;
		const int regs = arch_info(target_.arch()).unwound_regs;
		objects_.clear();
		// The registers at every frame: frame 0's are the thread's,
		// deeper frames' callee-saved ones CFI recovered.
		for (size_t i = 0; i < frames.size(); i++)
			for (int r = 0; r < regs; r++)
				if (r != sp && frames[i].has_reg(r))
					consider(t, frames[i].regs.dwarf[size_t(r)],
						 {Place::reg, i, 0});
		// The stack from the innermost frame up, then a little at each
		// frame beyond that, so that a deep stack still shows the
		// frames near its top (where a thread's main function is).
		std::vector<uint64_t> frame_sp;
		for (auto &f : frames)
			frame_sp.push_back(f.has_reg(sp) ? f.regs.dwarf[size_t(sp)] : 0);
		// The frame a stack word is in: the last whose sp is at or
		// below it. Words come in address order, so a cursor will do.
		size_t cursor = 0;
		auto frame_of = [&](uint64_t a) {
			while (cursor + 1 < frame_sp.size() &&
			       (!frame_sp[cursor + 1] || frame_sp[cursor + 1] <= a))
				cursor++;
			return cursor;
		};
		stack_from_ = info.regs.sp;
		stack_to_ = stack_from_ + reach_.stack;
		for_words(target_, stack_from_, stack_to_, true, [&](uint64_t a, uint64_t v) {
			consider(t, v, {Place::stack, frame_of(a), 0});
		});
		for (size_t i = 0; i < frame_sp.size(); i++)
			if (frame_sp[i] >= stack_to_)
				for_words(target_, frame_sp[i], frame_sp[i] + reach_.frame, true,
					  [&](uint64_t, uint64_t v) {
						  consider(t, v, {Place::stack, i, 0});
					  });
		// Static TLS lies below the thread pointer on x86_64 and above
		// it on aarch64, the pthread (its keys) the other side.
		if (uint64_t tp = info.regs.thread_pointer; tp > reach_.tls)
			for_words(target_, tp - reach_.tls, tp + reach_.tls, false,
				  [&](uint64_t, uint64_t v) {
					  consider(t, v, {Place::tls, 0, 0});
				  });
		// One step further: the objects those words point to.
		std::set<uint64_t> looked;
		for (size_t i = 0; i < objects_.size() && looked.size() < reach_.objects; i++) {
			auto [object, place] = objects_[i];
			if (!looked.insert(object).second)
				continue;
			place.object = object;
			for_words(target_, object, object + reach_.object, true,
				  [&](uint64_t, uint64_t v) { consider(t, v, place); });
		}
	}

	const Target &target_;
	const std::vector<NativeStack> &stacks_;
	const std::vector<Reading> readings_;
	const HolderReach reach_;
	std::unordered_map<uint64_t, std::vector<std::pair<size_t, uint64_t>>> known_;
	std::vector<Hold> holds_;
	std::vector<std::pair<uint64_t, Place>> objects_; // of the thread searched
	uint64_t stack_from_ = 0, stack_to_ = 0;
};

// "lua_State 0x... in the stack of frame #2 worker_main of thread 12"
std::string describe(const Hold &h, const NativeStack &stack)
{
	std::string s = "lua_State " + hex(h.L) + " in ";
	if (h.place.object)
		s += "the object " + hex(h.place.object) + " pointed to from ";
	auto frame = [&] {
		const NativeFrame &f = stack.frames[h.place.frame];
		return "frame #" + std::to_string(h.place.frame) +
		       (f.function.empty() ? "" : " " + f.function);
	};
	switch (h.place.kind) {
	case Place::reg:
		s += "a register at " + frame();
		break;
	case Place::stack:
		s += "the stack" + (stack.frames.empty() ? "" : " of " + frame());
		break;
	case Place::tls:
		s += "the TLS";
		break;
	}
	return s + " of thread " + std::to_string(stack.tid);
}

// How directly a hold shows its thread is the VM's: in the thread's own
// registers, stack or TLS before in an object it points to.
int depth(const Hold &h)
{
	return h.place.object ? 1 : 0;
}

} // namespace

void add_held_vms(const Target &target, const std::vector<NativeStack> &stacks,
		  const std::vector<const lj_layout *> &layouts, std::vector<VmCandidate> &found,
		  Diagnostics &diag, std::optional<Rejection> &closest, const HolderReach &reach)
{
	std::vector<Hold> holds = HolderSearch(target, stacks, layouts, reach).run();
	std::ranges::stable_sort(holds, {}, depth);
	const std::vector<Reading> readings = readings_of(layouts);
	// Each g, under the layouts that read its lua_State, from the most
	// direct hold: what names how the VM was found.
	std::set<uint64_t> tried;
	for (const Hold &h : holds) {
		if (!tried.insert(h.g).second)
			continue;
		diag.evidence("held: " + describe(h, stacks[h.thread]) + ", G " + hex(h.g));
		for (const lj_layout *ly : readings[h.reading].layouts) {
			if (settled(found, h.g))
				break;
			auto c = check_global_state(Vm(target, *ly, h.g),
						    describe(h, stacks[h.thread]), &closest);
			if (c)
				add_candidate(found, std::move(*c));
			else
				diag.evidence("held G " + hex(h.g) + ", layout " + ly->name +
					      " rejected: " + c.error().message);
		}
	}
	// Which thread a VM is: the one running it, then the one holding it
	// most directly; of those, the one that holds fewest VMs (a worker
	// holds its own, the thread that made them all holds several).
	std::map<size_t, std::set<uint64_t>> vms_of_thread;
	for (const Hold &h : holds)
		if (std::ranges::any_of(found, [&](auto &c) { return c.g == h.g; }))
			vms_of_thread[h.thread].insert(h.g);
	for (VmCandidate &c : found) {
		std::map<size_t, int> best; // thread -> its most direct hold
		for (const Hold &h : holds)
			if (h.g == c.g && !best.contains(h.thread))
				best[h.thread] = depth(h);
		std::vector<size_t> threads;
		for (auto &[t, d] : best)
			if (t != c.thread)
				threads.push_back(t);
		std::ranges::stable_sort(threads, [&](size_t a, size_t b) {
			return std::pair(best[a], vms_of_thread[a].size()) <
			       std::pair(best[b], vms_of_thread[b].size());
		});
		if (c.thread)
			threads.insert(threads.begin(), *c.thread);
		c.holders = std::move(threads);
	}
}

} // namespace ljcore
