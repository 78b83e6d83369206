#include "analyzer/traces/snapshot_values.h"

#include <algorithm>
#include <cstring>
#include <string_view>
#include <vector>

#include "analyzer/lua/lua_debug.h"
#include "analyzer/lua/luajit_arch.h"
#include "analyzer/lua/tvalue.h"
#include "analyzer/traces/ir_ops.h"
#include "luajit/trace_layout.h"

namespace ljcore {

namespace {

// IRType (lj_ir.h): the GC types share their numbers with LJ_T*.
constexpr uint8_t irt_true = 2, irt_lightud = 3, irt_num = 14, irt_i8 = 15, irt_int = 19;

// RegSP (lj_target.h): a register in the low byte (RID_NONE set: none,
// RID_SUNK: an allocation sunk into the snapshot), a spill slot above.
constexpr uint8_t rid_none = 0x80, rid_sunk = 0xfd;

struct Ops {
	int rename = ir_op("RENAME"), conv = ir_op("CONV"), kpri = ir_op("KPRI"),
	    kint = ir_op("KINT"), kgc = ir_op("KGC"), knum = ir_op("KNUM");
};

const Ops &ops()
{
	static const Ops o;
	return o;
}

// A LuaJIT register id as a DWARF register number (lj_target_x86.h's
// RID order is eax, ecx, edx, ebx, esp, ebp, esi, edi, r8..r15; arm64's
// x0..x31), or -1 for a vector register (RID_MIN_FPR: 16 / 32).
int gpr_dwarf(uint8_t rid, Arch arch)
{
	std::span<const int8_t> dwarf = luajit_arch(arch).gpr_dwarf;
	return rid < dwarf.size() ? dwarf[rid] : -1;
}

unsigned first_fpr(Arch arch)
{
	return luajit_arch(arch).first_fpr;
}

// The last IR position that reads each ref: an operand of a later
// instruction (PHIs, at the end, keep loop values alive throughout), or an
// entry of a snapshot, read by the guards up to the next snapshot.
std::vector<uint32_t> last_uses(const Trace &t)
{
	std::vector<uint32_t> last(t.ir.size(), 0);
	auto use = [&](uint32_t ref, uint32_t at) {
		if (ref >= LJ_REF_BIAS && ref >= t.nk && ref - t.nk < last.size())
			last[ref - t.nk] = std::max(last[ref - t.nk], at);
	};
	for (size_t i = 0; i < t.ir.size(); i++) {
		const IrIns &ins = t.ir[i];
		if (ins.value_slot || ins.op >= std::size(lj_ir_ops))
			continue;
		uint32_t at = t.nk + uint32_t(i);
		if (lj_ir_ops[ins.op].m1 == 0)
			use(ins.op1, at);
		if (lj_ir_ops[ins.op].m2 == 0)
			use(ins.op2, at);
	}
	for (size_t s = 0; s < t.snapshots.size(); s++) {
		uint32_t end = s + 1 < t.snapshots.size() ? t.snapshots[s + 1].ref : t.nins;
		for (uint32_t e : t.snapshots[s].entries)
			use(LJ_SNAP_ENTRY_REF(e), end > 0 ? end - 1 : 0);
	}
	// A value from before the LOOP that the loop body reads is read
	// again by the next iteration: it lives to the end.
	int loop_op = ir_op("LOOP");
	for (size_t i = 0; i < t.ir.size(); i++)
		if (t.ir[i].op == loop_op && !t.ir[i].value_slot) {
			for (size_t r = 0; r < i; r++)
				if (last[r] > t.nk + i)
					last[r] = t.nins;
			break;
		}
	return last;
}

class Restorer {
public:
	Restorer(const Vm &mem, const Trace &t, uint32_t snapno, const NativeFrame &f,
		 const ThreadRegs *vector_regs, Arch arch)
	    : mem_(mem), t_(t), snapno_(snapno), f_(f), vector_regs_(vector_regs), arch_(arch),
	      last_use_(last_uses(t)),
	      next_snapshot_(snapno + 1 < t.snapshots.size() ? t.snapshots[snapno + 1].ref : t.nins)
	{
	}

	SnapshotSlot value(uint32_t ref, int depth = 0) const;

private:
	uint16_t regsp(uint32_t ref, const IrIns &ir) const;
	SnapshotSlot from_bits(uint8_t type, uint64_t bits) const;
	SnapshotSlot lost(std::string why) const { return SnapshotSlot{0, std::move(why)}; }

	const Vm &mem_;
	const Trace &t_;
	uint32_t snapno_;
	const NativeFrame &f_;
	const ThreadRegs *vector_regs_;
	Arch arch_;
	std::vector<uint32_t> last_use_;
	uint32_t next_snapshot_; // the first IR ref past this snapshot's code
};

// snap_renameref(): a RENAME at the end of the IR moves the value of ref
// for the snapshots up to its op2 to another register or spill slot.
uint16_t Restorer::regsp(uint32_t ref, const IrIns &ir) const
{
	uint16_t rs = ir.prev;
	for (size_t i = t_.ir.size(); i-- > 0 && t_.ir[i].op == ops().rename;)
		if (t_.ir[i].op1 == ref && t_.ir[i].op2 <= snapno_)
			rs = t_.ir[i].prev;
	return rs;
}

// A TValue from the bits a register or spill slot holds for an IR type.
SnapshotSlot Restorer::from_bits(uint8_t type, uint64_t bits) const
{
	const lj_layout &ly = mem_.layout();
	if (type >= irt_i8 && type <= irt_int) {
		// An integer restores as a number (no LJ_DUALNUM on x86_64 or
		// arm64).
		double d = double(int32_t(uint32_t(bits)));
		uint64_t raw;
		memcpy(&raw, &d, 8);
		return {raw, {}};
	}
	if (type == irt_num)
		return {bits, {}};
	if (type <= irt_true)
		return {tvalue::of_primitive(ly, type), {}};
	if (type > irt_lightud && type <= LJ_TUDATA && type != LJ_IRT_P32 && type != LJ_IRT_P64 &&
	    type != LJ_TPROTO)
		return {tvalue::of_gc_object(ly, type, bits), {}};
	return lost("a value of IR type " + std::to_string(type) + " is not restored here");
}

SnapshotSlot Restorer::value(uint32_t ref, int depth) const
{
	const IrIns *ir = t_.at(ref);
	if (!ir)
		return lost("IR ref " + std::to_string(ref) + " is outside the trace");
	uint8_t type = ir->type & LJ_IRT_TYPE;
	if (ref < LJ_REF_BIAS) {
		if (ir->op == ops().kpri)
			return from_bits(type, 0);
		if (ir->op == ops().kint)
			return from_bits(irt_int, ir->k);
		if (ir->op == ops().knum)
			return {ir->k, {}};
		if (ir->op == ops().kgc)
			return from_bits(type, ir->k);
		return lost("constant " + std::string(lj_ir_ops[ir->op].name) + " is not restored");
	}
	uint16_t rs = regsp(ref, *ir);
	uint8_t reg = rs & 0xff, spill = uint8_t(rs >> 8);
	if (reg == rid_sunk)
		return lost("an allocation the trace sank: it was never made");
	if (spill) {
		// Spill slots are 4-byte units above the trace's stack pointer
		// (sps_scale() in lj_target_*.h).
		int sp = arch_info(arch_).sp;
		if (!f_.has_reg(sp))
			return lost("spilled, and the stack pointer is not known at this frame");
		uint64_t at = f_.regs.dwarf[size_t(sp)] + 4 * uint64_t(spill);
		bool wide = type == irt_num ||
			    (mem_.layout().gc64 && type > irt_lightud && type <= LJ_TUDATA);
		auto lo = mem_.value<uint32_t>(at);
		auto hi = mem_.value<uint32_t>(at + 4);
		if (!lo || (wide && !hi))
			return lost("its spill slot at " + luajit_pointer(at) + " is unreadable");
		return from_bits(type, wide ? uint64_t(*hi) << 32 | *lo : *lo);
	}
	// The allocator gives a ref its register from its definition to its
	// last use, then to others: a signal anywhere in the snapshot's code
	// finds the ref there only if something after that code still reads
	// it (LuaJIT's own exits are at guards, where it always is).
	if (!(reg & rid_none) && last_use_[ref - t_.nk] < next_snapshot_)
		return lost("its register may hold something else by the crash point");
	if (reg & rid_none) {
		// Only an int-to-number conversion may lack a register: it is
		// restored from its operand (snap_restoreval()).
		if (ir->op == ops().conv && depth == 0)
			return value(ir->op1, depth + 1);
		return lost("IR ref " + std::to_string(ref - LJ_REF_BIAS) + " has no register");
	}
	if (reg >= first_fpr(arch_)) {
		if (!vector_regs_ || !vector_regs_->has_fpr)
			return lost("kept in a vector register the core did not record here");
		return from_bits(type, vector_regs_->fpr[reg - first_fpr(arch_)]);
	}
	int dwarf = gpr_dwarf(reg, arch_);
	if (dwarf < 0 || !f_.has_reg(dwarf))
		return lost("kept in a register that is not known at this frame");
	return from_bits(type, f_.regs.dwarf[size_t(dwarf)]);
}

} // namespace

SnapshotValues snapshot_values(const Vm &mem, const Trace &t, uint32_t snapno, uint64_t base,
			       const NativeFrame &f, const ThreadRegs *vector_regs, Arch arch)
{
	SnapshotValues out;
	if (snapno >= t.snapshots.size())
		return out;
	const lj_layout &ly = mem.layout();
	Restorer restorer(mem, t, snapno, f, vector_regs, arch);
	// Slot 0 is the frame the trace started in: base - 1 - LJ_FR2.
	uint64_t frame = base - 8 * (1 + uint64_t(ly.fr2));
	const TraceSnapshot &snap = t.snapshots[snapno];
	uint32_t first_inlined = snap.nslots;
	std::vector<bool> listed(snap.nslots, false);
	for (uint32_t e : snap.entries) {
		uint32_t slot = LJ_SNAP_ENTRY_SLOT(e);
		if (slot < listed.size())
			listed[slot] = true;
		if ((e & LJ_SNAP_FRAME) && slot > uint32_t(ly.fr2))
			first_inlined = std::min(first_inlined, slot - uint32_t(ly.fr2));
		// Frame links are the walker's business; NORESTORE slots keep
		// what the stack holds.
		if (e & (LJ_SNAP_FRAME | LJ_SNAP_CONT | LJ_SNAP_NORESTORE | LJ_SNAP_KEYINDEX))
			continue;
		out[frame + 8 * uint64_t(slot)] = restorer.value(LJ_SNAP_ENTRY_REF(e));
	}
	// A slot the snapshot leaves out keeps what the stack held when the
	// trace started, which is current for the frame the trace started in.
	// The frames it inlined never were on the stack: a slot of theirs left
	// out is dead at this point (lj_snap.c snap_usedef() purges what the
	// bytecode will not read again) and the stack holds an older value.
	for (uint32_t slot = first_inlined; slot < snap.nslots; slot++)
		if (!listed[slot])
			out[frame + 8 * uint64_t(slot)] = SnapshotSlot{
				0, "dead at this point of the trace: its snapshot keeps no value"};
	return out;
}

} // namespace ljcore
