#include "analyzer/values/lua_print.h"

#include <cstring>

#include "analyzer/lua/global_state.h"
#include "analyzer/lua/lua_state.h"
#include "analyzer/lua/tvalue.h"
#include "analyzer/model/lua_text.h"
#include "analyzer/values/lua_table.h"

namespace ljcore {

namespace {

using namespace tvalue;

const Variable *find_variable(const std::vector<Variable> &vars, const LuaPath &p, bool local)
{
	const Variable *found = nullptr;
	uint32_t n = 0;
	for (const Variable &v : vars) {
		if (local && v.kind != "local" && v.kind != "temporary")
			continue; // varargs have negative debug.getlocal indices
		if (p.index ? ++n == p.index : v.name == p.variable && v.kind != "temporary") {
			found = &v;
			// By name, the last one wins: it is the innermost scope's.
			if (p.index || !local)
				break;
		}
	}
	return found;
}

// The TValue a path's root names, with what the root was in words.
Expected<uint64_t> root_value(const Vm &mem, const VmResult &vm, const LuaPath &p,
			      PrintedValue &out)
{
	const lj_layout &ly = mem.layout();
	switch (p.root) {
	case LuaPath::Root::globals: {
		out.root = "_G";
		uint64_t L = vm.current_thread ? vm.current_thread : vm.main_thread;
		auto env = LuaState(mem, L).env();
		if (!env)
			return fail("the globals table of " + hex(L) + " is unreadable");
		return of_gc_object(ly, LJ_TTAB, *env);
	}
	case LuaPath::Root::registry: {
		out.root = "registry";
		auto raw = GlobalState(mem).registry();
		if (!raw)
			return fail("the registry is unreadable");
		return *raw;
	}
	case LuaPath::Root::address: {
		out.root = "object " + hex(p.address);
		auto gct = mem.gct(p.address);
		if (!gct)
			return fail(hex(p.address) + " is unreadable");
		if (*gct < LJ_TSTR || *gct > LJ_TUDATA || *gct == LJ_TUPVAL || *gct == LJ_TPROTO ||
		    *gct == LJ_TTRACE)
			return fail(hex(p.address) + " is not a Lua value (GC type " +
				    std::to_string(*gct) + ")");
		return of_gc_object(ly, *gct, p.address);
	}
	case LuaPath::Root::local:
	case LuaPath::Root::upvalue:
		break;
	}
	bool local = p.root == LuaPath::Root::local;
	std::string what = p.index ? std::to_string(p.index) : "'" + p.variable + "'";
	out.root = (local ? "local " : "upvalue ") + what + " of frame " + std::to_string(p.frame);
	const LuaFrame *frame = nullptr;
	for (const LuaFrame &f : vm.stack.frames)
		if (f.level == p.frame)
			frame = &f;
	if (!frame)
		return fail("the running coroutine has no frame " + std::to_string(p.frame) + " (" +
			    std::to_string(vm.stack.frames.size()) + " frames)");
	if (!frame->variables.read)
		return fail("frame " + std::to_string(p.frame) + " is not a Lua function");
	const auto &vars = local ? frame->variables.locals : frame->variables.upvalues;
	const Variable *v = find_variable(vars, p, local);
	if (!v)
		return fail(
			"frame " + std::to_string(p.frame) + " has no " +
			(local ? "local " : "upvalue ") + what +
			(frame->variables.note.empty() ? "" : " (" + frame->variables.note + ")"));
	// The value as --locals read it: from the stack, or from the trace's
	// snapshot for a frame that runs compiled.
	out.slot = v->slot;
	if (v->value.type == LuaValue::Type::lost)
		return fail(out.root + " is lost: " + v->value.why);
	if (v->value.type == LuaValue::Type::unreadable)
		return fail("its slot " + hex(v->slot) + " is unreadable");
	return v->value.raw;
}

} // namespace

PrintedValue print_value(const Vm &mem, const VmResult &vm, const PrintRequest &request,
			 const SymbolLookup &symbolize)
{
	const lj_layout &ly = mem.layout();
	PrintedValue out;
	out.expression = request.expression;
	auto raw = root_value(mem, vm, request.path, out);
	if (!raw) {
		out.error = raw.error().message;
		return out;
	}
	std::string where = out.root;
	for (const LuaKey &key : request.path.steps) {
		if (itype(ly, *raw) != ~uint32_t(LJ_TTAB)) {
			out.error = where + " is " +
				    (is_nil(ly, *raw) ? std::string("nil") : "not a table") +
				    ": cannot index it with " + key_text(key);
			return out;
		}
		raw = table_get(mem, gc_object(ly, *raw), key);
		if (!raw) {
			out.error = where + key_text(key) + ": " + raw.error().message;
			return out;
		}
		where += key_text(key);
	}
	ValueReader reader(mem, vm.current_thread, request.limits, symbolize);
	out.value = reader.of_raw(*raw);
	out.found = true;
	return out;
}

} // namespace ljcore
