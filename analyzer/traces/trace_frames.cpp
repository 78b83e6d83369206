#include "analyzer/traces/trace_frames.h"

#include <functional>

#include "analyzer/lua/function.h"
#include "analyzer/lua/lua_debug.h"
#include "analyzer/lua/tvalue.h"
#include "analyzer/traces/ir_ops.h"
#include "luajit/frame.h"
#include "luajit/trace_layout.h"

namespace ljcore {

namespace {

// One frame link slot of the snapshot, outermost first.
struct SnapFrame {
	uint32_t slot = 0;
	uint64_t function = 0;
	uint64_t link = 0;
};

// The frame link slots of a snapshot and what they hold. With FR2 the
// link slot holds a KNUM constant with the link's bits and the function
// is the slot below (lj_record.c rec_call_setup()); without FR2 the slot
// holds the function and the links sit after the entries, the outermost
// last (lj_snap.c lj_snap_restore() takes them from the end).
using Resolver = std::function<Expected<uint64_t>(uint32_t ref)>;

Expected<std::vector<SnapFrame>> snapshot_frames(const Trace &t, const TraceSnapshot &snap,
						 bool fr2, const Resolver &resolve)
{
	std::vector<SnapFrame> frames;
	auto constant = [&](uint32_t entry) -> Expected<const IrIns *> {
		const IrIns *k = t.at(LJ_SNAP_ENTRY_REF(entry));
		if (!k || LJ_SNAP_ENTRY_REF(entry) >= LJ_REF_BIAS)
			return fail("slot " + std::to_string(LJ_SNAP_ENTRY_SLOT(entry)) +
				    " of the snapshot is not a constant");
		return k;
	};
	// A function slot may hold a value the trace loaded (a closure made
	// at run time, guarded by its prototype only): resolve finds it.
	auto function = [&](uint32_t entry) -> Expected<uint64_t> {
		auto k = constant(entry);
		if (k)
			return (*k)->func.address;
		auto v = resolve(LJ_SNAP_ENTRY_REF(entry));
		return v ? v : std::unexpected(k.error().context(v.error().message));
	};
	size_t next_link = snap.links.size();
	for (size_t i = 0; i < snap.entries.size(); i++) {
		uint32_t e = snap.entries[i];
		if (e & LJ_SNAP_CONT)
			return fail("a continuation frame (metamethod call) is not restored");
		// Slot 0 (and with FR2 slot 1) belong to the frame the trace
		// started in, which is on the stack itself.
		if (!(e & LJ_SNAP_FRAME) || LJ_SNAP_ENTRY_SLOT(e) <= uint32_t(fr2))
			continue;
		SnapFrame f;
		f.slot = LJ_SNAP_ENTRY_SLOT(e);
		if (fr2) {
			if (i == 0 || LJ_SNAP_ENTRY_SLOT(snap.entries[i - 1]) != f.slot - 1)
				return fail("no function below the frame in slot " +
					    std::to_string(f.slot));
			auto fn = function(snap.entries[i - 1]);
			auto link = constant(e);
			if (!fn || !link)
				return std::unexpected(fn ? link.error() : fn.error());
			f.function = *fn;
			f.link = (*link)->k;
		} else {
			auto fn = function(e);
			if (!fn)
				return std::unexpected(fn.error());
			if (next_link == 0)
				return fail("the snapshot has fewer frame links than frames");
			f.function = *fn;
			f.link = snap.links[--next_link];
		}
		if (!f.function)
			return fail("slot " + std::to_string(f.slot) +
				    " holds no function constant");
		frames.push_back(f);
	}
	return frames;
}

// The GC object an IR instruction of t holds, where it can be read from
// memory as the trace did: a constant, a slot of the frame at jit_base
// (SLOAD), or an upvalue of a function it holds (ULOAD of UREFO/UREFC,
// lj_record.c rec_upvalue(): op2 is the index << 8 | a hash). A function
// a snapshot slot holds this way is most often an upvalue of the frame
// below.
Expected<uint64_t> ir_object(const Vm &mem, const Trace &t, uint32_t ref, uint64_t slot0,
			     int depth = 0)
{
	static const int kgc = ir_op("KGC"), sload = ir_op("SLOAD"), uload = ir_op("ULOAD"),
			 urefo = ir_op("UREFO"), urefc = ir_op("UREFC");
	const IrIns *ins = t.at(ref);
	if (!ins || depth > 4)
		return fail("IR " + std::to_string(ref) + " is not followed");
	auto tvalue_object = [&](uint64_t tv) -> Expected<uint64_t> {
		auto v = mem.value<uint64_t>(tv);
		if (!v)
			return fail("its value is unreadable");
		return tvalue::gc_object(mem.layout(), *v);
	};
	if (ins->op == kgc)
		return ins->func.address ? ins->func.address : ins->k;
	if (ins->op == sload)
		return tvalue_object(slot0 + 8 * ins->op1);
	if (ins->op == uload) {
		const IrIns *uref = t.at(ins->op1);
		if (!uref || (uref->op != urefo && uref->op != urefc))
			return fail("IR " + std::to_string(ref) + " loads no upvalue");
		auto fn = ir_object(mem, t, uref->op1, slot0, depth + 1);
		if (!fn)
			return fn;
		auto uv = Function(mem, *fn).upvalue(uref->op2 >> 8);
		auto tv = uv ? upval_value(mem, *uv) : uv;
		if (!tv)
			return fail("the upvalue of IR " + std::to_string(ref) + " is unreadable");
		return tvalue_object(*tv);
	}
	return fail("IR " + std::to_string(ref) + " is not a constant, slot or upvalue");
}

} // namespace

Expected<TraceFrames> restore_trace_frames(const Vm &mem, const Trace &t, uint32_t snapno,
					   uint64_t jit_base, bool memory_current)
{
	const lj_layout &ly = mem.layout();
	if (snapno >= t.snapshots.size())
		return fail("trace " + std::to_string(t.number) + " has no snapshot #" +
			    std::to_string(snapno));
	const TraceSnapshot &snap = t.snapshots[snapno];
	std::string where =
		"snapshot #" + std::to_string(snapno) + " of trace " + std::to_string(t.number);
	if (snap.pc == 0)
		return fail(where + " has no pc");
	// Snapshot slot 0 is the function slot of the frame at jit_base.
	uint64_t slot0 = jit_base - 8 * (1 + ly.fr2);
	auto frames = snapshot_frames(t, snap, ly.fr2, [&](uint32_t ref) -> Expected<uint64_t> {
		if (!memory_current)
			return fail("the memory has moved on since");
		auto fn = ir_object(mem, t, ref, slot0);
		if (!fn)
			return fn;
		// What it found must be a function: its header says so.
		auto gct = mem.gct(*fn);
		if (!gct || *gct != uint8_t(~LJ_TFUNC))
			return fail("IR " + std::to_string(ref) + " holds no function");
		return fn;
	});
	if (!frames)
		return std::unexpected(frames.error().context(where));

	TraceFrames out;
	out.trace = t.number;
	out.snapshot = snapno;
	out.base = jit_base;
	// The snapshot resumes at snap.pc: the frame is running that
	// instruction, so its pc is the next one, as the interpreter keeps it.
	uint64_t pc = snap.pc + 4;
	for (auto it = frames->rbegin(); it != frames->rend(); ++it) {
		// A Lua link is the return pc; a vararg link, the distance down
		// to the function's original frame.
		uint64_t type = it->link & LJ_FRAME_TYPE;
		if ((it->link & LJ_FRAME_TYPEP) == LJ_FRAME_VARG) {
			// A vararg function's frame moved up: the Lua link of its
			// original frame, just below, still names the caller.
			auto below = std::next(it);
			if (below == frames->rend() || below->function != it->function)
				return fail(where + ": vararg frame in slot " +
					    std::to_string(it->slot) + " has no original");
			out.inlined.push_back({slot0 + 8 * it->slot, it->function, pc});
			pc = below->link;
			it = below;
			continue;
		}
		if (type != LJ_FRAME_LUA)
			return fail(where + ": frame in slot " + std::to_string(it->slot) +
				    " is not a Lua call");
		out.inlined.push_back({slot0 + 8 * it->slot, it->function, pc});
		pc = it->link;
	}
	out.base_pc = pc;
	// The innermost frame must be running the snapshot's pc.
	uint64_t top = out.inlined.empty() ? 0 : out.inlined.front().function;
	if (top) {
		auto pt = function_proto(mem, top);
		if (!pt || bc_position(*pt, snap.pc + 4) == no_bcpos)
			return fail(where + ": its pc is not in the innermost function");
	}
	return out;
}

} // namespace ljcore
