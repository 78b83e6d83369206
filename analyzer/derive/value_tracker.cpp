#include "analyzer/derive/value_tracker.h"

#include <algorithm>
#include <deque>
#include <optional>
#include <set>
#include <utility>
#include <vector>

namespace ljcore {

bool TrackedValue::is(unsigned a, std::initializer_list<int64_t> p) const
{
	return kind == pointer && arg == a && k == 0 &&
	       std::equal(path.begin(), path.end(), p.begin(), p.end());
}

bool TrackedValue::is(unsigned a, const LoadPath &p) const
{
	return kind == pointer && arg == a && k == 0 && path == p;
}

std::optional<int64_t> TrackedValue::member_of(unsigned a, const LoadPath &p) const
{
	if (kind != pointer || arg != a || k != 0 || p.overlong() || path.size() != p.size() + 1 ||
	    !std::equal(p.begin(), p.end(), path.begin()))
		return std::nullopt;
	return path.back();
}

namespace {

bool starts_with_any(const Mnemonic &m, std::initializer_list<Mnemonic::Name> prefixes)
{
	for (Mnemonic::Name p : prefixes)
		if (m.starts_with(p))
			return true;
	return false;
}

// Instructions whose first operand is read, not written.
bool writes_first_operand(const Mnemonic &m, Arch arch)
{
	if (arch == Arch::x86_64)
		return !(m == "cmp" || m == "test" || m == "push" || m.starts_with("j") ||
			 m.starts_with("nop") || m == "ucomisd" || m == "comisd" || m == "bt" ||
			 m.starts_with("prefetch") || m == "endbr64");
	return !(starts_with_any(m, {"cmp", "cmn", "tst", "cb", "tb", "b.", "ccmp", "ccmn", "prfm",
				     "nop", "fcmp", "hint", "dmb", "dsb", "isb", "st"}));
}

// Values by register: a vector searched from the front, not a std::map.
// A path's registers are copied at each forward branch, where a map
// allocates a node for every register, and a function uses a few dozen
// registers at most.
template <class V> class RegisterMap {
public:
	using Entry = std::pair<Reg, V>;
	using iterator = typename std::vector<Entry>::iterator;

	iterator begin() { return entries_.begin(); }
	iterator end() { return entries_.end(); }
	iterator find(Reg reg)
	{
		return std::find_if(begin(), end(), [&](const Entry &e) { return e.first == reg; });
	}
	const V *get(Reg reg) const
	{
		for (const Entry &e : entries_)
			if (e.first == reg)
				return &e.second;
		return nullptr;
	}
	V &operator[](Reg reg)
	{
		auto it = find(reg);
		return it != end() ? it->second : entries_.emplace_back(reg, V{}).second;
	}
	void erase(Reg reg)
	{
		if (auto it = find(reg); it != end())
			entries_.erase(it);
	}
	// Drops the registers for which pred(reg) holds.
	template <class Pred> void erase_if(Pred pred)
	{
		std::erase_if(entries_, [&](const Entry &e) { return pred(e.first); });
	}

private:
	std::vector<Entry> entries_;
};

class Tracker {
public:
	Tracker(Arch arch, TrackOptions options) : arch_(arch), options_(options)
	{
		auto args = argument_registers(arch);
		for (unsigned i = 0; i < args.size(); i++) {
			TrackedValue v;
			v.kind = TrackedValue::pointer, v.arg = i;
			regs_[args[i]] = v;
		}
		if (options.stack) {
			TrackedValue sp;
			sp.kind = TrackedValue::pointer, sp.arg = TrackedValue::stack;
			regs_[stack_register(arch)] = sp;
		}
	}

	// False once the function's path ends (a return or a jump).
	bool step(const Operation &op)
	{
		trace_.instructions++;
		if (op.mnemonic.empty())
			return false; // undecodable: nothing after it can be trusted
		if (options_.every_way) {
			if (runs_.empty() || op.addr != runs_.back().second)
				runs_.emplace_back(op.addr, op.addr);
			runs_.back().second = op.addr + op.size;
		}
		return arch_ == Arch::x86_64 ? step_x86(op) : step_arm64(op);
	}

	FunctionTrace finish() { return std::move(trace_); }

	// The path goes on at a jump's target when it is further into the
	// function: the instructions in between are skipped (a join after an
	// inlined helper's early exit, say). Backward, when asked, to code the
	// path has not run (TrackOptions::every_way). A loop ends the path.
	void set_bounds(uint64_t begin, uint64_t end) { begin_ = begin, end_ = end; }
	bool skipped(const Operation &op) const { return op.addr < resume_at_; }
	// Where the last step jumped back to, once.
	std::optional<uint64_t> take_jump_back() { return std::exchange(back_to_, std::nullopt); }

	// Where a conditional branch of op would go, when that is further into
	// the function: another path to follow from there.
	std::optional<uint64_t> branch_forward(const Operation &op) const
	{
		const Mnemonic &m = op.mnemonic;
		bool conditional = arch_ == Arch::x86_64
					   ? m.size() > 1 && m[0] == 'j' && m != "jmp"
					   : m.starts_with("b.") || m == "cbz" || m == "cbnz" ||
						     m == "tbz" || m == "tbnz";
		if (!conditional || !op.branch_to || *op.branch_to <= op.addr ||
		    *op.branch_to >= end_)
			return std::nullopt;
		return op.branch_to;
	}

	// The registers of the path followed, to start another from: their
	// values, and those holding a pointer plus an index or a table's
	// entry.
	struct Registers {
		RegisterMap<TrackedValue> values;
		RegisterMap<std::pair<TrackedValue, TrackedValue>> scaled;
		RegisterMap<TableEntry> entries;
		// The code run to get there (TrackOptions::every_way): a jump
		// back into it is a loop.
		std::vector<std::pair<uint64_t, uint64_t>> runs;
	};
	Registers registers() const { return {regs_, scaled_, entries_, runs_}; }
	// The registers of the other way a conditional select of the last
	// step went (TrackOptions::every_way), once.
	std::optional<Registers> take_other_select()
	{
		return std::exchange(other_select_, std::nullopt);
	}
	void start_path(Registers regs)
	{
		regs_ = std::move(regs.values);
		scaled_ = std::move(regs.scaled);
		entries_ = std::move(regs.entries);
		runs_ = std::move(regs.runs);
		resume_at_ = 0;
	}

private:
	bool in_function(uint64_t addr) const { return addr >= begin_ && addr < end_; }

	// Whether an unconditional jump stays in the function, the path going
	// on at its target.
	bool within_function(const Operation &op)
	{
		if (!op.branch_to || !in_function(*op.branch_to))
			return false;
		if (*op.branch_to > op.addr) {
			resume_at_ = *op.branch_to;
			return true;
		}
		uint64_t to = *op.branch_to;
		if (!options_.every_way ||
		    std::any_of(runs_.begin(), runs_.end(), [&](const auto &run) {
			    return to >= run.first && to < run.second;
		    }))
			return false;
		back_to_ = to;
		resume_at_ = 0;
		return true;
	}

	uint64_t begin_ = 0, end_ = 0, resume_at_ = 0;
	std::optional<uint64_t> back_to_;
	std::optional<Registers> other_select_;
	// The code this path ran, [first, second) in turn, with what ran
	// before the branch or select it started at (every_way only).
	std::vector<std::pair<uint64_t, uint64_t>> runs_;

	TrackedValue value_of(const Operand &o) const
	{
		TrackedValue v;
		if (o.kind == OperandKind::imm)
			v.kind = TrackedValue::constant, v.k = o.value;
		else if (o.kind == OperandKind::reg && o.zero)
			v.kind = TrackedValue::constant, v.k = 0;
		else if (o.kind == OperandKind::reg)
			v = register_value(o.reg);
		return v;
	}

	TrackedValue register_value(Reg reg) const
	{
		const TrackedValue *v = regs_.get(reg);
		return v ? *v : TrackedValue{};
	}

	static TrackedValue constant(int64_t k)
	{
		TrackedValue v;
		v.kind = TrackedValue::constant, v.k = k;
		return v;
	}

	// The address a memory operand names, as a value.
	TrackedValue address_of(const Operand &o) const
	{
		TrackedValue base = register_value(o.reg);
		if (o.kind != OperandKind::mem || o.index != no_reg ||
		    base.kind == TrackedValue::unknown || base.kind == TrackedValue::count ||
		    __builtin_add_overflow(base.k, o.value, &base.k))
			return TrackedValue{};
		base.width = 0;
		return base;
	}

	// What a memory operand holds, as a value, without recording the
	// load: an indirect call's target.
	TrackedValue loaded(const Operand &o) const
	{
		TrackedValue at = address_of(o);
		if (at.kind != TrackedValue::pointer || !at.path.push_back(at.k))
			return TrackedValue{};
		at.k = 0, at.width = o.width;
		return at;
	}

	// The entry of a table in the file that memory operand o reads: its
	// base an address the code computed from the PC, or, in a
	// position-dependent build, the displacement alone, plus an index.
	std::optional<TableEntry> table_entry(const Operand &o) const
	{
		if (o.kind != OperandKind::mem || o.index == no_reg)
			return std::nullopt;
		TrackedValue base = o.reg == no_reg ? constant(0) : register_value(o.reg);
		if (base.kind != TrackedValue::constant)
			return std::nullopt;
		return TableEntry{uint64_t(base.k) + uint64_t(o.value), o.scale,
				  register_value(o.index)};
	}

	// A load into dst of what o holds, val: an entry of a table is kept
	// apart, for a call through dst.
	void set_loaded(const Operand &dst, const Operand &o, TrackedValue val)
	{
		auto entry = table_entry(o);
		set(dst, std::move(val));
		if (entry && dst.kind == OperandKind::reg)
			entries_[dst.reg] = std::move(*entry);
	}

	// v times by: a constant, or a number loaded (a count, say) with what
	// was added to it.
	static TrackedValue scaled(TrackedValue v, int64_t by)
	{
		bool number = v.kind == TrackedValue::constant || v.kind == TrackedValue::count ||
			      (v.kind == TrackedValue::pointer && !v.path.empty());
		// Hostile code may scale without end: unknown once it overflows.
		if (!number || __builtin_mul_overflow(v.k, by, &v.k) ||
		    __builtin_mul_overflow(v.scale, by, &v.scale))
			return TrackedValue{};
		if (v.kind == TrackedValue::pointer)
			v.kind = TrackedValue::count, v.width = 0;
		return v;
	}

	// v shifted left by a constant (shl, lsl): scaled; unknown beyond 15.
	static TrackedValue shifted(const TrackedValue &v, const TrackedValue &by)
	{
		if (by.kind != TrackedValue::constant || by.k <= 0 || by.k >= 16)
			return TrackedValue{};
		return scaled(v, int64_t(1) << by.k);
	}

	// What x86's lea computes: an address; one in the file, from rip
	// (a table's); or a number scaled, "lea edx, [8*rax + 0x28]" or
	// "lea rdx, [rax + 2*rax]".
	TrackedValue lea(const Operation &op, const Operand &o) const
	{
		if (o.kind != OperandKind::mem)
			return TrackedValue{};
		if (o.reg == x86_rip && o.index == no_reg)
			return constant(int64_t(op.addr + op.size + uint64_t(o.value)));
		if (o.index == no_reg)
			return address_of(o);
		if (o.reg != no_reg && o.reg != o.index)
			return TrackedValue{};
		int64_t times = o.scale + (o.reg == o.index ? 1 : 0);
		return add_constant(scaled(register_value(o.index), times), constant(o.value), 1);
	}

	// Records the access and returns the value read.
	TrackedValue access(uint64_t addr, const Operand &o, bool store, int64_t extra = 0,
			    TrackedValue stored = {})
	{
		TrackedValue at = address_of(o);
		TrackedValue read;
		if (at.kind != TrackedValue::pointer)
			return indexed_access(addr, o, store);
		int64_t offset;
		if (__builtin_add_overflow(at.k, extra, &offset))
			return read; // hostile code's
		TrackedValue object = std::move(at);
		object.k = 0;
		if (!store) {
			read = object;
			if (read.path.push_back(offset))
				read.width = o.width;
			else
				read = TrackedValue{};
		}
		trace_.accesses.push_back(MemoryAccess{addr, std::move(object), offset, o.width,
						       store, store ? std::move(stored) : read});
		return read;
	}

	// Records an access through base + index + displacement and returns
	// what it read: an element, followed apart from the base's fields.
	TrackedValue indexed_access(uint64_t addr, const Operand &o, bool store)
	{
		TrackedValue base = register_value(o.reg), index, read;
		if (o.kind == OperandKind::mem && o.index != no_reg)
			index = register_value(o.index);
		else if (auto it = scaled_.find(o.reg);
			 o.kind == OperandKind::mem && it != scaled_.end())
			base = it->second.first, index = it->second.second;
		else
			return read;
		if (base.kind != TrackedValue::pointer)
			return read;
		int64_t offset;
		if (__builtin_add_overflow(base.k, o.value, &offset))
			return read; // hostile code's
		base.k = 0, base.width = 0;
		trace_.indexed.push_back(IndexedAccess{addr, base, offset, o.width, store, index});
		size_t n = trace_.indexed.size() - 1;
		if (!store && n < TrackedValue::call_result - TrackedValue::element) {
			read.kind = TrackedValue::pointer;
			read.arg = TrackedValue::element + unsigned(n);
			read.width = o.width;
		}
		return read;
	}

	void set(const Operand &dst, TrackedValue v)
	{
		if (dst.kind != OperandKind::reg || dst.zero)
			return;
		scaled_.erase(dst.reg);
		entries_.erase(dst.reg);
		// A write of 8 or 16 bits keeps the rest of the register.
		if (arch_ == Arch::x86_64 && dst.width < 4)
			v = TrackedValue{};
		regs_[dst.reg] = std::move(v);
	}

	void call(const Operation &op)
	{
		CallSite c;
		c.addr = op.addr, c.target = op.branch_to.value_or(0);
		c.args.reserve(argument_registers(arch_).size());
		for (Reg r : argument_registers(arch_))
			c.args.push_back(register_value(r));
		if (!op.branch_to && !op.operands.empty()) {
			const Operand &to = op.operands[0];
			std::optional<TableEntry> entry = table_entry(to);
			if (const TableEntry *e =
				    to.kind == OperandKind::reg ? entries_.get(to.reg) : nullptr)
				entry = *e;
			if (entry)
				c.entry = std::move(*entry);
			else if (to.kind == OperandKind::reg)
				c.callee = value_of(to);
			else if (to.kind == OperandKind::mem)
				c.callee = loaded(to);
		}
		trace_.calls.push_back(std::move(c));
		auto clobbered = [&](Reg reg) { return caller_saved(reg, arch_); };
		regs_.erase_if(clobbered);
		scaled_.erase_if(clobbered);
		entries_.erase_if(clobbered);
		// What it returns: a new object, followed like an argument.
		TrackedValue result;
		result.kind = TrackedValue::pointer;
		result.arg = TrackedValue::call_result + unsigned(trace_.calls.size() - 1);
		regs_[return_register(arch_)] = result;
	}

	// dst = a + sign * b, where b is a constant.
	static TrackedValue add_constant(TrackedValue a, const TrackedValue &b, int sign)
	{
		if (b.kind != TrackedValue::constant || a.kind == TrackedValue::unknown)
			return TrackedValue{};
		if (sign > 0 ? __builtin_add_overflow(a.k, b.k, &a.k)
			     : __builtin_sub_overflow(a.k, b.k, &a.k))
			return TrackedValue{}; // hostile code's
		if (a.kind == TrackedValue::pointer)
			a.width = 0;
		return a;
	}

	void added(uint64_t addr, const TrackedValue &v)
	{
		if (v.kind == TrackedValue::pointer && v.k != 0)
			trace_.additions.push_back(Addition{addr, v});
	}

	// A conditional select: dst = a on this path, and, following every
	// way, b on another from the next instruction; else unknown.
	void select(const Operand &dst, TrackedValue a, TrackedValue b)
	{
		if (!options_.every_way) {
			set(dst, TrackedValue{});
			return;
		}
		set(dst, std::move(b));
		other_select_ = registers();
		set(dst, std::move(a));
	}

	// dst holds base plus an index, which the next load indexes from.
	void hold_index(const Operand &dst, TrackedValue base, TrackedValue index)
	{
		set(dst, TrackedValue{});
		if (dst.kind == OperandKind::reg && !dst.zero)
			scaled_[dst.reg] = std::pair(std::move(base), std::move(index));
	}

	// dst = a + b, one a pointer, the other a count (an index scaled):
	// the pointer plus the index ("shl rdx, 4; add rdx, rdi":
	// &cts->tab[id]).
	bool added_index(const Operand &dst, TrackedValue a, TrackedValue b)
	{
		if (a.kind == TrackedValue::count)
			std::swap(a, b);
		if (a.kind != TrackedValue::pointer || b.kind != TrackedValue::count ||
		    dst.kind != OperandKind::reg)
			return false;
		hold_index(dst, std::move(a), std::move(b));
		return true;
	}

	// dst = a & b: a pointer stays itself when the other is a mask that
	// keeps its address bits, as GC64's gcval() (LJ_GCVMASK, 47 bits)
	// and cframe_raw() (~CFRAME_RAWMASK) are.
	static TrackedValue and_mask(const TrackedValue &a, const TrackedValue &b)
	{
		constexpr uint64_t address_bits = 0x7ffffffffff8;
		auto mask = [](const TrackedValue &v) {
			return v.kind == TrackedValue::constant &&
			       (uint64_t(v.k) & address_bits) == address_bits;
		};
		if (a.kind == TrackedValue::pointer && mask(b))
			return a;
		if (b.kind == TrackedValue::pointer && mask(a))
			return b;
		return TrackedValue{};
	}

	bool step_x86(const Operation &op)
	{
		const Mnemonic &m = op.mnemonic;
		auto &o = op.operands;
		if (m == "ret" || m == "hlt" || m == "ud2")
			return false;
		if (m == "jmp" && within_function(op))
			return true;
		if (m == "call" || m == "jmp") {
			// A jump to another function, or through a register or
			// memory (g->allocf), is a tail call; either ends the
			// path when it is a jump, as a loop's jump back does.
			if (m == "call" ||
			    (op.branch_to ? !in_function(*op.branch_to)
					  : !o.empty() && o[0].kind != OperandKind::imm))
				call(op);
			return m == "call";
		}
		if (o.empty())
			return true;
		if (options_.stack && (m == "push" || m == "pop")) {
			TrackedValue &sp = regs_[stack_register(arch_)];
			sp = add_constant(sp, constant(8), m == "push" ? -1 : 1);
			if (m == "pop")
				set(o[0], TrackedValue{});
			return true;
		}
		const Operand &dst = o[0];
		bool writes = writes_first_operand(m, arch_);
		if (m == "lea" && o.size() == 2) {
			// "lea rcx, [rdi + 8*rax]": a pointer plus a scaled
			// index, which the next load indexes from.
			const Operand &a = o[1];
			TrackedValue base = register_value(a.reg);
			if (a.kind == OperandKind::mem && a.reg != no_reg && a.index != no_reg &&
			    a.reg != a.index && base.kind == TrackedValue::pointer) {
				hold_index(dst, add_constant(base, constant(a.value), 1),
					   register_value(a.index));
				return true;
			}
			set(dst, lea(op, a));
			return true;
		}
		if (m == "xor" && o.size() == 2 && dst.kind == OperandKind::reg &&
		    o[1].kind == OperandKind::reg && dst.reg == o[1].reg) {
			set(dst, constant(0));
			return true;
		}
		if ((m.starts_with("mov") || m.starts_with("cmov")) && o.size() == 2 &&
		    !m.starts_with("movs") && m != "movzx" && m != "movsx" && m != "movsxd" &&
		    dst.kind == OperandKind::mem) {
			access(op.addr, dst, true, 0, value_of(o[1]));
			return true;
		}
		// Sources first: a load through the register being written.
		TrackedValue src;
		if (o.size() >= 2)
			src = o[1].kind == OperandKind::mem ? access(op.addr, o[1], false)
							    : value_of(o[1]);
		if (dst.kind == OperandKind::mem) {
			// Read-modify-write (or, and, add...) or a compare.
			access(op.addr, dst, false);
			if (writes)
				access(op.addr, dst, true);
			return true;
		}
		if (!writes)
			return true;
		bool plain_move = m == "mov" || m == "movzx" || m == "movsx" || m == "movsxd" ||
				  m == "movabs" || m == "movq" || m == "movd";
		if (plain_move && o.size() == 2)
			set_loaded(dst, o[1], src);
		else if (m.starts_with("cmov") && o.size() == 2)
			select(dst, src, value_of(dst));
		else if (m == "add" && o.size() == 2 && added_index(dst, value_of(dst), src))
			;
		else if ((m == "add" || m == "sub") && o.size() == 2) {
			TrackedValue a = value_of(dst);
			if (m == "sub" && src.kind != TrackedValue::constant)
				trace_.subtractions.push_back(Subtraction{op.addr, a, src});
			set(dst, add_constant(a, src, m == "add" ? 1 : -1));
			added(op.addr, value_of(dst));
		} else if (m == "and" && o.size() == 2 && dst.width == 8)
			set(dst, and_mask(value_of(dst), src));
		else if (m == "shl" && o.size() == 2)
			set(dst, shifted(value_of(dst), src));
		else if (m == "imul" && o.size() == 3 && o[2].kind == OperandKind::imm)
			set(dst, scaled(src, o[2].value));
		else
			set(dst, TrackedValue{});
		return true;
	}

	// An AArch64 load or store with writeback, its memory operand o[mem]:
	// pre-indexed, the base becomes the address accessed ("[x0, #16]!");
	// post-indexed, it moves on by the immediate after the operand
	// ("[x21], #200", the address being the base itself).
	void write_back(const Operands &o, size_t mem)
	{
		const Operand &m = o[mem];
		bool post =
			!m.writeback && mem + 1 < o.size() && o[mem + 1].kind == OperandKind::imm;
		if (m.kind != OperandKind::mem || m.reg == no_reg || (!m.writeback && !post))
			return;
		Operand base;
		base.kind = OperandKind::reg, base.reg = m.reg, base.width = 8;
		int64_t by = post ? o[mem + 1].value : m.value;
		set(base, add_constant(register_value(m.reg), constant(by), 1));
	}

	bool step_arm64(const Operation &op)
	{
		const Mnemonic &m = op.mnemonic;
		auto &o = op.operands;
		if (m == "ret" || m == "brk" || m == "udf")
			return false;
		if (m == "b" && within_function(op))
			return true;
		// "br x16" after loading g->allocf: a tail call, as "b" to a
		// function is.
		if (m == "bl" || m == "blr" || m == "b" || m == "br") {
			if (m != "b" || (op.branch_to && !in_function(*op.branch_to)))
				call(op);
			return m == "bl" || m == "blr";
		}
		if (o.empty())
			return true;
		const Operand &dst = o[0];
		bool load = starts_with_any(m, {"ldr", "ldur", "ldar", "ldapr"});
		bool load_pair = starts_with_any(m, {"ldp", "ldnp"});
		bool store = starts_with_any(m, {"str", "stur", "stlr"});
		bool store_pair = starts_with_any(m, {"stp", "stnp"});
		if (load && o.size() >= 2) {
			set_loaded(dst, o[1], access(op.addr, o[1], false));
			write_back(o, 1);
			return true;
		}
		if (load_pair && o.size() >= 3) {
			TrackedValue first = access(op.addr, o[2], false);
			TrackedValue second = access(op.addr, o[2], false, o[2].width);
			set(o[0], first);
			set(o[1], second);
			write_back(o, 2);
			return true;
		}
		if (store && o.size() >= 2) {
			access(op.addr, o[1], true, 0, value_of(dst));
			write_back(o, 1);
			return true;
		}
		if (store_pair && o.size() >= 3) {
			access(op.addr, o[2], true, 0, value_of(o[0]));
			access(op.addr, o[2], true, o[2].width, value_of(o[1]));
			write_back(o, 2);
			return true;
		}
		if (!writes_first_operand(m, arch_))
			return true;
		if (m == "mov" && o.size() == 2) {
			set(dst, value_of(o[1]));
			return true;
		}
		if (m == "csel" && o.size() == 4) {
			select(dst, value_of(o[1]), value_of(o[2]));
			return true;
		}
		// The page an address is in, which LLVM prints as an address.
		if (m == "adrp" && o.size() == 2 && o[1].kind == OperandKind::imm) {
			set(dst, constant(o[1].value));
			return true;
		}
		// A count scaled: "lsl w0, w0, #3", "umull x2, w2, w0" with w0
		// a constant.
		if (m == "lsl" && o.size() == 3) {
			set(dst, shifted(value_of(o[1]), value_of(o[2])));
			return true;
		}
		if ((m == "mul" || m == "umull" || m == "smull") && o.size() == 3) {
			TrackedValue a = value_of(o[1]), b = value_of(o[2]);
			if (a.kind == TrackedValue::constant)
				std::swap(a, b);
			set(dst,
			    b.kind == TrackedValue::constant ? scaled(a, b.k) : TrackedValue{});
			return true;
		}
		// "add x4, x4, w1, uxtw #3": a pointer plus a scaled index,
		// which the next load's displacement indexes from.
		if (m == "add" && o.size() == 4 && o[2].kind == OperandKind::reg && !o[2].zero &&
		    value_of(o[1]).kind == TrackedValue::pointer) {
			hold_index(dst, value_of(o[1]), value_of(o[2]));
			return true;
		}
		if (m == "add" && o.size() == 3 && added_index(dst, value_of(o[1]), value_of(o[2])))
			return true;
		if ((m == "add" || m == "sub") && o.size() >= 3) {
			TrackedValue a = value_of(o[1]), b = value_of(o[2]);
			// "add x0, x1, #0x1, lsl #12": the immediate shifted.
			if (o.size() == 4 && b.kind == TrackedValue::constant)
				b = TrackedValue{};
			if (m == "sub" && o.size() == 3 && b.kind != TrackedValue::constant)
				trace_.subtractions.push_back(Subtraction{op.addr, a, b});
			set(dst, add_constant(a, b, m == "add" ? 1 : -1));
			added(op.addr, value_of(dst));
			return true;
		}
		if (m == "and" && o.size() == 3 && dst.width == 8) {
			set(dst, and_mask(value_of(o[1]), value_of(o[2])));
			return true;
		}
		set(dst, TrackedValue{});
		return true;
	}

	Arch arch_;
	TrackOptions options_;
	RegisterMap<TrackedValue> regs_;
	// Registers holding a pointer plus a scaled index (base, index), on
	// the path followed: arm64's "add x4, x4, w1, uxtw #3", x86's lea, or
	// a pointer plus a count (added_index).
	RegisterMap<std::pair<TrackedValue, TrackedValue>> scaled_;
	// Registers holding an entry loaded from a table in the file, to be
	// called: arm64's "ldr x2, [x23, x2, lsl #3]" before "blr x2".
	RegisterMap<TableEntry> entries_;
	FunctionTrace trace_;
};

} // namespace

FunctionTrace track_values(LazyOperations &ops, Arch arch, TrackOptions options)
{
	// The fall-through path first (the rules take the first access of a
	// kind, and that is where the function's main work is), then those
	// its conditional branches start, each target once, within a budget:
	// no loop, no path explosion.
	constexpr size_t max_paths = 16, max_steps = 4096;
	Tracker t(arch, options);
	if (!ops.at(0))
		return t.finish();
	t.set_bounds(ops.at(0)->addr, ops.end());
	struct Path {
		size_t index;
		Tracker::Registers regs;
	};
	std::deque<Path> pending{{0, t.registers()}};
	std::set<uint64_t> started;
	size_t paths = 0, steps = 0;
	while (!pending.empty() && paths++ < max_paths) {
		Path path = std::move(pending.front());
		pending.pop_front();
		t.start_path(std::move(path.regs));
		for (size_t i = path.index; steps < max_steps; i++) {
			const Operation *op = ops.at(i);
			if (!op)
				break;
			if (t.skipped(*op))
				continue;
			steps++;
			auto target = t.branch_forward(*op);
			if (!t.step(*op))
				break;
			if (auto other = t.take_other_select(); other && pending.size() < max_paths)
				pending.push_back({i + 1, std::move(*other)});
			if (auto back = t.take_jump_back()) {
				auto at = ops.index_of(*back);
				if (!at)
					break;
				i = *at - 1; // the loop's i++ makes it *at
				continue;
			}
			if (target && started.insert(*target).second)
				if (auto at = ops.index_of(*target))
					pending.push_back({*at, t.registers()});
		}
	}
	return t.finish();
}

} // namespace ljcore
