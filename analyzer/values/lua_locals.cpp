#include "analyzer/values/lua_locals.h"

#include "analyzer/lua/frame.h"
#include "analyzer/lua/function.h"
#include "analyzer/lua/lua_debug.h"
#include "analyzer/lua/lua_state.h"

namespace ljcore {

namespace {

constexpr uint8_t proto_vararg = 0x02; // PROTO_VARARG in lj_obj.h
// LJ_MAX_SLOTS: no frame has more slots, so no more locals or varargs.
constexpr uint32_t max_slots = 250;
constexpr uint64_t tvalue_size = 8;

// frame_prevd() of a vararg frame: the frame of the original call, whose
// slots above the fixed parameters hold the varargs.
std::optional<uint64_t> vararg_origin(const Vm &mem, uint64_t frame)
{
	auto ftsz = frame_ftsz(mem, frame);
	if (!ftsz)
		return std::nullopt;
	uint64_t delta = uint64_t(*ftsz & ~int64_t(LJ_FRAME_TYPEP));
	if (delta == 0 || delta > frame)
		return std::nullopt;
	return frame - delta;
}

class FrameReader {
public:
	FrameReader(const Vm &mem, const ValueReader &values, const LocalsOptions &options,
		    const SnapshotValues *trace_values)
	    : mem_(mem), values_(values), options_(options), trace_values_(trace_values)
	{
	}

	// top: L->top, where the slots of the innermost frame end.
	void read(LuaFrame &f, uint64_t top) const;

private:
	void locals(LuaFrame &f, const Proto &pt, uint64_t nextframe) const;
	void varargs(LuaFrame &f, const Proto &pt, uint64_t nextframe) const;
	void upvalues(LuaFrame &f, const Proto &pt) const;
	Variable variable(std::string name, const char *kind, uint64_t slot) const
	{
		return Variable{std::move(name), kind, slot, value_at(slot)};
	}
	// A stack slot's value: what the trace's snapshot restores there, if
	// it lists the slot.
	LuaValue value_at(uint64_t slot) const
	{
		if (trace_values_) {
			auto it = trace_values_->find(slot);
			if (it != trace_values_->end()) {
				if (it->second.missing.empty())
					return values_.of_raw(it->second.raw);
				LuaValue v;
				v.type = LuaValue::Type::lost;
				v.why = it->second.missing;
				return v;
			}
		}
		return values_.at(slot);
	}

	const Vm &mem_;
	const ValueReader &values_;
	const LocalsOptions &options_;
	const SnapshotValues *trace_values_;
};

void FrameReader::read(LuaFrame &f, uint64_t top) const
{
	FrameVariables &out = f.variables;
	if (f.ffid != LJ_FF_LUA || f.function == 0)
		return;
	out.read = true;
	if (f.trace && !trace_values_) {
		out.note = "runs in trace " + std::to_string(f.trace) +
			   ": its stack slots may be stale, values are not read";
		return;
	}
	auto pt = function_proto(mem_, f.function);
	if (!pt) {
		out.note = pt.error().message;
		return;
	}
	// debug_localname(): the innermost frame ends at L->top, with FR2 the
	// slot there would be the next frame's function.
	uint64_t nextframe = f.next_slot ? f.next_slot : top + tvalue_size * mem_.layout().fr2;
	// In a trace, L->top is stale: where the frame's temporaries end is
	// not known, and neither is the extent of the varargs.
	bool slots_bounded = !f.trace;
	locals(f, *pt, slots_bounded ? nextframe : 0);
	if (options_.all && slots_bounded)
		varargs(f, *pt, nextframe);
	upvalues(f, *pt);
	if (f.trace)
		out.note = "values as trace " + std::to_string(f.trace) +
			   "'s snapshot restores them" +
			   (options_.all ? "; temporaries and varargs are not listed" : "");
}

void FrameReader::locals(LuaFrame &f, const Proto &pt, uint64_t nextframe) const
{
	std::vector<std::string> names;
	uint32_t pos = bc_position(pt, f.pc);
	if (pos != no_bcpos) {
		auto live = live_variables(mem_, pt, pos);
		if (live)
			names = std::move(*live);
		else
			f.variables.note = live.error().message;
	}
	// Slot n (1-based) is at frame + n: named while a variable is live
	// there, a temporary while below the next frame.
	uint64_t frame = f.slot;
	uint64_t fr2 = mem_.layout().fr2;
	for (uint32_t n = 1; n <= max_slots; n++) {
		uint64_t slot = frame + tvalue_size * n;
		if (n <= names.size())
			f.variables.locals.push_back(variable(names[n - 1], "local", slot));
		else if (options_.all && frame + tvalue_size * (n + fr2) < nextframe)
			f.variables.locals.push_back(variable("(*temporary)", "temporary", slot));
		else
			break;
	}
}

void FrameReader::varargs(LuaFrame &f, const Proto &pt, uint64_t nextframe) const
{
	if (bc_position(pt, f.pc) == no_bcpos || !(pt.flags & proto_vararg))
		return;
	uint64_t frame = f.slot;
	// Once the function runs, its frame was copied above the varargs and
	// links down to the original call's frame.
	if ((f.frame_type & LJ_FRAME_TYPEP) == LJ_FRAME_VARG) {
		auto origin = vararg_origin(mem_, frame);
		if (!origin) {
			f.variables.note = "vararg frame at " + luajit_pointer(frame) +
					   " has an unreadable link";
			return;
		}
		nextframe = frame;
		frame = *origin;
	}
	uint64_t fr2 = mem_.layout().fr2;
	for (uint32_t n = 1; n <= max_slots; n++) {
		uint64_t slot1 = pt.numparams + n;
		if (frame + tvalue_size * (slot1 + fr2) >= nextframe)
			break;
		f.variables.locals.push_back(
			variable("(*vararg)", "vararg", frame + tvalue_size * slot1));
	}
}

void FrameReader::upvalues(LuaFrame &f, const Proto &pt) const
{
	Function fn(mem_, f.function);
	auto nup = fn.nupvalues();
	if (!nup)
		return;
	for (uint32_t k = 0; k < *nup; k++) {
		auto name = upvalue_name(mem_, pt, k);
		Variable v{name.value_or(""), "upvalue", 0, {}};
		// An open upvalue's value is a stack slot: what a trace's
		// snapshot restores there, if it does.
		auto uv = fn.upvalue(k);
		auto at = uv ? upval_value(mem_, *uv) : uv;
		if (at) {
			v.slot = *at;
			v.value = value_at(*at);
		} else {
			v.value.type = LuaValue::Type::unreadable;
			v.value.address = uv ? upval_v_at(mem_, *uv) : fn.uvptr_at(k);
		}
		f.variables.upvalues.push_back(std::move(v));
	}
}

} // namespace

void read_frame_variables(const Vm &mem, uint64_t current_L, LuaStack &stack,
			  const LocalsOptions &options, const SymbolLookup &symbolize,
			  const SnapshotValues *trace_values)
{
	ValueReader values(mem, current_L, options.limits, symbolize);
	FrameReader frames(mem, values, options, trace_values);
	uint64_t top = LuaState(mem, stack.L).top().value_or(0);
	for (LuaFrame &f : stack.frames)
		frames.read(f, top);
}

} // namespace ljcore
