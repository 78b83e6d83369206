// The objects a GC object references, after lj_gc.c's gc_traverse_*: a
// table's metatable, array and hash part; a Lua function's prototype and
// the values of its upvalues, a C function's upvalues; a thread's stack; a
// prototype's GC constants and, in RefMode::gc, its root trace; a
// trace's GC constants, the traces it links to and its starting
// prototype (gc_traverse_trace); a userdata's metatable. Each reference is told
// to a sink with its kind and key, which ref_label() turns into the step
// of a path ("._G", "[3]", "<upvalue 'x'>").
//
// Two modes. RefMode::paths, for paths people read: the GCupval between a
// function and its upvalue's value is skipped, traces and environments are
// not followed, and weak tables are followed as strong ones (a path
// through one is a path all the same). RefMode::gc, for what the GC
// itself keeps alive (retained sizes): exactly the edges lj_gc.c marks.
// GCupval objects are nodes of their own (function -> upvalue -> value),
// environments, string keys and a prototype's chunk name are followed,
// the keys of hash nodes with a nil value are not, and the weak half of a
// weak table (its metatable's __mode) is left out, strings excepted, as
// gc_mayclear never clears a string.
//
// A sink has
//   void ref(RefKind kind, uint64_t key, uint64_t target)  target != 0
//   bool stopped() const            true ends the visit early
//   void scanned(uint64_t slots)    after each chunk of slots read
//   void problem(uint64_t obj, const std::string &what)
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "analyzer/lua/global_state.h"
#include "analyzer/lua/limits.h"
#include "analyzer/lua/table.h"
#include "analyzer/lua/tvalue.h"
#include "analyzer/lua/vm.h"
#include "analyzer/lua/vm_object.h"
#include "analyzer/model/lua_text.h"
#include "luajit/ir_names.h"

namespace ljcore {

// How an object is referenced, and what the key of ref() is then.
enum class RefKind : uint8_t {
	field,      // a table value; key: its GCstr key
	index,      // a table value; key: bits of the number key (an array index as a double)
	other_key,  // a table value; key: tag of a boolean key, or the GC key object
	as_key,     // a key of the table
	metatable,  // of a table or userdata
	upvalue,    // key: upvalue index of a Lua function
	c_upvalue,  // key: upvalue index of a C function
	stack_slot, // key: slot number from the bottom of the stack
	prototype,  // of a Lua function
	constant,   // key: index of a prototype's GC constant
	// RefMode::gc only:
	env,            // a function's, thread's or userdata's environment table
	upvalue_value,  // of a GCupval; the step from the function says the name
	chunkname,      // of a prototype
	trace,          // a prototype's root trace, or a trace's link; key: trace number
	trace_constant, // a trace's IR constant (KGC); key: its IR reference
};

enum class RefMode : uint8_t { paths, gc };

// The step of a path that ref kind with key makes from the object from.
std::string ref_label(const Vm &vm, RefKind kind, uint64_t key, uint64_t from);

template <typename Sink> class ObjectRefs {
public:
	ObjectRefs(const Vm &vm, Sink &sink, RefMode mode = RefMode::paths)
	    : vm_(vm), ly_(vm.layout()), sink_(sink), gc_(mode == RefMode::gc)
	{
	}

	// The references of object o, whose type tag is gct.
	void visit(uint64_t o, uint8_t gct)
	{
		switch (gct) {
		case LJ_TTAB:
			table(o);
			break;
		case LJ_TFUNC:
			function(o);
			break;
		case LJ_TTHREAD:
			thread(o);
			break;
		case LJ_TPROTO:
			proto(o);
			break;
		case LJ_TUDATA:
			// GCudata.metatable sits where GCtab's does (lj_obj.h).
			ref(RefKind::metatable, 0, vm_.ref(o + ly_.tab_metatable).value_or(0));
			// GCudata.env is the GCRef right before len.
			if (gc_)
				ref(RefKind::env, 0,
				    vm_.ref(o + ly_.ud_len - ly_.ptrsize).value_or(0));
			break;
		case LJ_TUPVAL:
			if (gc_)
				upvalue(o);
			break;
		case LJ_TTRACE:
			if (gc_ && ly_.jit)
				trace(o);
			break;
		default:
			break;
		}
	}

private:
	// Slots read per memory access while scanning a big table or stack.
	static constexpr uint64_t chunk_slots = 4096;

	void ref(RefKind kind, uint64_t key, uint64_t target)
	{
		if (target && !sink_.stopped())
			sink_.ref(kind, key, target);
	}
	uint64_t slot_object(const unsigned char *p) const
	{
		return tvalue::gc_object_or_0(ly_, tvalue::load(p));
	}

	// Reads count slots from addr, stride bytes apart, in chunks; calls
	// on_slot(index, the slot's bytes) for each. An unreadable chunk ends
	// the scan, told as a problem of obj, which calls the slots `what`.
	void scan(uint64_t addr, uint64_t count, size_t stride, const char *what, uint64_t obj,
		  const auto &on_slot)
	{
		for (uint64_t done = 0; done < count && !sink_.stopped(); done += chunk_slots) {
			uint64_t n = std::min(chunk_slots, count - done);
			buf_.resize(n * stride);
			auto r = vm_.memory().read(addr + done * stride,
						   std::as_writable_bytes(std::span(buf_)));
			if (!r) {
				sink_.problem(obj, std::string(what) + " unreadable after " +
							   std::to_string(done) + " of " +
							   std::to_string(count) + ": " +
							   r.error().reason + " at " +
							   luajit_pointer(r.error().addr));
				return;
			}
			for (uint64_t k = 0; k < n; k++)
				on_slot(done + k, buf_.data() + k * stride);
			sink_.scanned(n);
		}
	}

	void table(uint64_t addr)
	{
		// The header's fields, read on their own: read_table() costs
		// more on millions of tables.
		object_size::VmObject f{vm_, addr};
		const uint64_t metatable = f.ref(ly_.tab_metatable, ly_.ptrsize);
		Table t{addr,
			f.ref(ly_.tab_array, ly_.ptrsize),
			f.at<uint32_t>(ly_.tab_asize),
			f.ref(ly_.tab_node, ly_.ptrsize),
			f.at<uint32_t>(ly_.tab_hmask),
			ly_.node_size};
		if (f.failed)
			return;
		ref(RefKind::metatable, 0, metatable);
		weak_ = gc_ && metatable ? weak_mode(metatable) : 0;
		if (t.asize > lj_limit::array_slots)
			sink_.problem(addr, "table claims " + std::to_string(t.asize) +
						    " array slots, more than LuaJIT allows");
		else
			scan(t.array, t.asize, 8, "array part", addr,
			     [&](uint64_t k, const unsigned char *p) {
				     double key = double(k);
				     uint64_t bits;
				     memcpy(&bits, &key, 8);
				     ref(RefKind::index, bits, strong(p, weak_value));
			     });
		if (t.hmask == 0) // the shared nilnode
			return;
		if (t.hmask >= lj_limit::hash_nodes) {
			sink_.problem(addr, "table claims " + std::to_string(t.nodes()) +
						    " hash nodes, more than LuaJIT allows");
			return;
		}
		scan(t.node, t.nodes(), t.node_size, "hash part", addr,
		     [&](uint64_t, const unsigned char *p) { hash_node(p); });
	}

	// A Node: the value, then the key (lj_obj.h).
	void hash_node(const unsigned char *p)
	{
		uint64_t k = tvalue::load(p + 8);
		if (tvalue::is_nil(ly_, k)) // free node
			return;
		// gc_traverse_tab marks the key of a node only with its value.
		if (gc_ && tvalue::is_nil(ly_, tvalue::load(p)))
			return;
		uint64_t kgc = tvalue::gc_object_or_0(ly_, k);
		bool string_key = tvalue::itype(ly_, k) == ~uint32_t(LJ_TSTR);
		if (kgc && (!string_key || gc_))
			ref(RefKind::as_key, 0, strong(p + 8, weak_key));
		uint64_t vgc = strong(p, weak_value);
		if (!vgc)
			return;
		if (string_key)
			ref(RefKind::field, kgc, vgc);
		else if (tvalue::is_number(ly_, k))
			ref(RefKind::index, k, vgc);
		else
			ref(RefKind::other_key, kgc ? kgc : ~tvalue::itype(ly_, k), vgc);
	}

	void function(uint64_t fn)
	{
		auto ffid = vm_.value<uint8_t>(fn + ly_.fn_ffid);
		auto nup = vm_.value<uint8_t>(fn + ly_.fn_nupvalues);
		if (!ffid || !nup)
			return;
		// GCfunc.env is two GCRefs before pc (lj_obj.h GCfuncHeader).
		if (gc_)
			ref(RefKind::env, 0, vm_.ref(fn + ly_.fn_pc - 2 * ly_.ptrsize).value_or(0));
		if (*ffid != LJ_FF_LUA) {
			// GCfuncC: upvalue TValues follow the lua_CFunction.
			scan(fn + ly_.fn_f + 8, *nup, 8, "upvalues", fn,
			     [&](uint64_t k, const unsigned char *p) {
				     ref(RefKind::c_upvalue, k, slot_object(p));
			     });
			return;
		}
		// The prototype sits right before the bytecode (lj_obj.h funcproto).
		if (auto pc = vm_.ref(fn + ly_.fn_pc); pc && *pc > ly_.pt_size)
			ref(RefKind::prototype, 0, *pc - ly_.pt_size);
		// GCfuncL: uvptr[] to GCupval, whose v points at the value
		// (closed: inside the upvalue; open: a stack slot).
		for (uint32_t k = 0; k < *nup; k++) {
			auto uv = vm_.ref(fn + ly_.fn_uvptr + uint64_t(k) * ly_.ptrsize);
			if (gc_) {
				ref(RefKind::upvalue, k, uv.value_or(0));
				continue;
			}
			auto v = uv ? vm_.ref(*uv + ly_.uv_v) : uv;
			auto tv = v ? vm_.value<uint64_t>(*v) : v;
			if (tv)
				ref(RefKind::upvalue, k, tvalue::gc_object_or_0(ly_, *tv));
		}
	}

	// A GCupval's value: inside it when closed, a stack slot when open.
	void upvalue(uint64_t uv)
	{
		auto v = vm_.ref(uv + ly_.uv_v);
		auto tv = v ? vm_.value<uint64_t>(*v) : v;
		if (tv)
			ref(RefKind::upvalue_value, 0, tvalue::gc_object_or_0(ly_, *tv));
		else
			sink_.problem(uv, "upvalue's value unreadable: " + tv.error().reason);
	}

	// The slots in use, from the bottom of the stack to top.
	void thread(uint64_t L)
	{
		if (gc_)
			ref(RefKind::env, 0, vm_.ref(L + ly_.L_env).value_or(0));
		auto stack = vm_.ref(L + ly_.L_stack);
		auto top = vm_.value<uint64_t>(L + ly_.L_top);
		auto stacksize = vm_.value<uint32_t>(L + ly_.L_stacksize);
		if (!stack || !top || !stacksize || *top < *stack)
			return;
		uint64_t n = std::min<uint64_t>((*top - *stack) / 8, *stacksize);
		if (n > lj_limit::stack_slots) {
			sink_.problem(L, "thread's stack claims " + std::to_string(n) +
						 " slots, more than LuaJIT allows");
			return;
		}
		scan(*stack, n, 8, "stack", L, [&](uint64_t k, const unsigned char *p) {
			ref(RefKind::stack_slot, k, slot_object(p));
		});
	}

	// GC constants: GCRefs counted down from k (lj_obj.h proto_kgc).
	void proto(uint64_t pt)
	{
		if (gc_)
			ref(RefKind::chunkname, 0, vm_.ref(pt + ly_.pt_chunkname).value_or(0));
		auto k = vm_.ref(pt + ly_.pt_k);
		auto n = vm_.value<uint32_t>(pt + ly_.pt_sizekgc);
		if (!k || !n)
			return;
		scan(*k - uint64_t(*n) * ly_.ptrsize, *n, ly_.ptrsize, "GC constants", pt,
		     [&](uint64_t at, const unsigned char *p) {
			     uint64_t gc = 0;
			     memcpy(&gc, p, ly_.ptrsize);
			     ref(RefKind::constant, *n - 1 - at, gc);
		     });
		// GCproto.trace, the first of its root traces, follows flags
		// in every 2.1 (lj_obj.h).
		if (gc_ && ly_.jit)
			if (auto no = vm_.value<uint16_t>(pt + ly_.pt_flags + 1); no && *no)
				ref(RefKind::trace, *no, trace_object(pt, *no));
	}

	// GCtrace (lj_gc.c gc_traverse_trace): the GC objects among its IR
	// constants (refs nk .. REF_TRUE - 1), the traces it links to, its
	// starting prototype. A trace whose number is 0 (flushed) marks
	// nothing.
	void trace(uint64_t T)
	{
		const lj_trace_layout &tl = *ly_.jit;
		object_size::VmObject f{vm_, T};
		auto half = [&](uint16_t off) { return f.template at<uint16_t>(off); };
		const uint16_t traceno = half(tl.T_traceno);
		const uint32_t nk = f.template at<uint32_t>(tl.T_nk);
		const uint64_t ir = f.template at<uint64_t>(tl.T_ir);
		if (f.failed || !traceno)
			return;
		constexpr uint32_t ref_true = LJ_REF_BIAS - 3;
		if (nk < ref_true && ref_true - nk <= lj_limit::trace_ir) {
			buf_.resize(size_t(ref_true - nk + 1) * LJ_IRINS_SIZE);
			auto r = vm_.memory().read(ir + uint64_t(nk) * LJ_IRINS_SIZE,
						   std::as_writable_bytes(std::span(buf_)));
			if (!r)
				sink_.problem(T, "IR constants unreadable: " + r.error().reason +
							 " at " + luajit_pointer(r.error().addr));
			const IrConstOps &ops = ir_ops();
			for (uint32_t k = 0; r && k < ref_true - nk; k++) {
				const unsigned char *ins = buf_.data() + size_t(k) * LJ_IRINS_SIZE;
				const uint8_t op = ins[LJ_IRINS_O];
				if (op == ops.kgc) {
					uint64_t gc = 0;
					memcpy(&gc, ly_.gc64 ? ins + LJ_IRINS_SIZE : ins,
					       ly_.ptrsize);
					ref(RefKind::trace_constant, nk + k, gc);
				}
				// A 64-bit payload takes the next slot (lj_ir.h).
				if (op == ops.knum || op == ops.kint64 ||
				    (ly_.gc64 &&
				     (op == ops.kgc || op == ops.kptr || op == ops.kkptr)))
					k++;
			}
		}
		for (uint16_t off : {tl.T_link, tl.T_nextroot, tl.T_nextside})
			if (uint16_t no = half(off))
				ref(RefKind::trace, no, trace_object(T, no));
		ref(RefKind::prototype, 0, f.ref(tl.T_startpt, ly_.ptrsize));
	}

	// The trace J->trace[no] holds; 0, and a problem of from, past the
	// array or where it cannot be read.
	uint64_t trace_object(uint64_t from, uint16_t no)
	{
		if (!trace_array_) {
			const uint64_t J = GlobalState(vm_).gg() + ly_.jit->gg_J;
			trace_array_ = vm_.value<uint64_t>(J + ly_.jit->J_trace).value_or(0);
			sizetrace_ = vm_.value<uint32_t>(J + ly_.jit->J_sizetrace).value_or(0);
		}
		std::expected<uint64_t, ReadMiss> t =
			std::unexpected(ReadMiss{0, "past J->trace[]"});
		if (no < sizetrace_)
			t = vm_.ref(trace_array_ + uint64_t(no) * ly_.ptrsize);
		if (!t) {
			sink_.problem(from, "trace " + std::to_string(no) +
						    " not in J->trace[]: " + t.error().reason);
			return 0;
		}
		return *t;
	}

	// IR opcodes of constants, by name (IRDEF's order is data): the
	// same numbers in every fork, as constants come first. Looked up
	// once per process, not per ObjectRefs: the path search makes one
	// for each object it visits, and the lookups took 60% of the time
	// of `gc --paths` on a heap of 6 M objects.
	struct IrConstOps {
		uint8_t kgc = op("KGC"), kptr = op("KPTR"), kkptr = op("KKPTR"), knum = op("KNUM"),
			kint64 = op("KINT64");
		static uint8_t op(const char *name)
		{
			for (size_t i = 0; i < sizeof lj_ir_ops / sizeof lj_ir_ops[0]; i++)
				if (!strcmp(lj_ir_ops[i].name, name))
					return uint8_t(i);
			return 0xff;
		}
	};
	static const IrConstOps &ir_ops()
	{
		static const IrConstOps once;
		return once;
	}

	// The weak halves of a table (lj_gc.c gc_traverse_tab): bits of
	// weak_mode(), for the table being visited.
	static constexpr uint8_t weak_key = 1, weak_value = 2;

	// The GC object slot p holds unless weak says that half of the table
	// is weak: only strings survive a weak slot.
	uint64_t strong(const unsigned char *p, uint8_t half) const
	{
		uint64_t v = tvalue::load(p);
		if ((weak_ & half) && tvalue::itype(ly_, v) != ~uint32_t(LJ_TSTR))
			return 0;
		return tvalue::gc_object_or_0(ly_, v);
	}

	// The __mode of metatable mt as weak_* bits (lj_meta_fastg reads the
	// field; 'k' and 'v' anywhere in the string count), cached: a
	// million tables may share one metatable.
	uint8_t weak_mode(uint64_t mt)
	{
		if (auto it = weak_cache_.find(mt); it != weak_cache_.end())
			return it->second;
		uint8_t mode = 0;
		auto node = vm_.ref(mt + ly_.tab_node);
		auto hmask = vm_.value<uint32_t>(mt + ly_.tab_hmask);
		for (uint64_t i = 0; node && hmask && *hmask < lj_limit::hash_nodes && i <= *hmask;
		     i++) {
			auto key = vm_.value<uint64_t>(*node + i * ly_.node_size + 8);
			auto val = vm_.value<uint64_t>(*node + i * ly_.node_size);
			if (!key || !val)
				break;
			if (tvalue::itype(ly_, *key) != ~uint32_t(LJ_TSTR) ||
			    tvalue::itype(ly_, *val) != ~uint32_t(LJ_TSTR) ||
			    vm_.str(tvalue::gc_object(ly_, *key), 8).value_or("") != "__mode")
				continue;
			for (char c : vm_.str(tvalue::gc_object(ly_, *val), 64).value_or(""))
				mode |= c == 'k' ? weak_key : c == 'v' ? weak_value : 0;
			break;
		}
		weak_cache_.emplace(mt, mode);
		return mode;
	}

	const Vm &vm_;
	const lj_layout &ly_;
	Sink &sink_;
	const bool gc_;
	uint8_t weak_ = 0;
	std::unordered_map<uint64_t, uint8_t> weak_cache_;
	std::vector<unsigned char> buf_;
	// J->trace[] and its length, read at the first trace reached.
	uint64_t trace_array_ = 0;
	uint32_t sizetrace_ = 0;
};

} // namespace ljcore
