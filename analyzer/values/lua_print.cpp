#include "analyzer/values/lua_print.h"

#include <cstring>

#include "analyzer/lj_limits.h"
#include "analyzer/values/tvalue.h"

namespace ljcore {

namespace {

using namespace tvalue;

std::string hex(uint64_t v)
{
	char buf[24];
	snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
	return buf;
}

// Whether the raw TValue k is the key written in the expression.
Expected<bool> key_matches(const LuaMemory &mem, uint64_t k, const LuaKey &key)
{
	const lj_layout &ly = mem.layout();
	uint32_t it = itype(ly, k);
	switch (key.kind) {
	case LuaKey::Kind::boolean:
		return it == ~(key.boolean ? tag_true : tag_false);
	case LuaKey::Kind::number:
		if (it == ~tag_isnum)
			return double(int32_t(uint32_t(k))) == key.number;
		if (is_double(ly, k)) {
			double d;
			memcpy(&d, &k, 8);
			return d == key.number;
		}
		return false;
	case LuaKey::Kind::string:
		break;
	}
	if (it != ~uint32_t(LJ_TSTR))
		return false;
	uint64_t s = gc_object(ly, k);
	auto len = mem.value<uint32_t>(s + ly.str_len);
	if (!len)
		return fail("string key at " + hex(s) + " is unreadable");
	if (*len != key.bytes.size())
		return false;
	auto bytes = mem.str(s, *len);
	if (!bytes)
		return fail("string key at " + hex(s) + " is unreadable");
	return *bytes == key.bytes;
}

// rawget(t, key) as a raw TValue; nil when the table has no such key.
Expected<uint64_t> table_get(const LuaMemory &mem, uint64_t t, const LuaKey &key)
{
	const lj_layout &ly = mem.layout();
	auto array = mem.ref(t + ly.tab_array);
	auto asize = mem.value<uint32_t>(t + ly.tab_asize);
	auto node = mem.ref(t + ly.tab_node);
	auto hmask = mem.value<uint32_t>(t + ly.tab_hmask);
	if (!array || !asize || !node || !hmask)
		return fail("table " + hex(t) + " is unreadable");
	// Integer keys below asize live in the array part only (lj_tab.c).
	if (key.kind == LuaKey::Kind::number && key.number >= 0 && key.number < double(*asize) &&
	    key.number == double(uint64_t(key.number))) {
		uint64_t slot = *array + 8 * uint64_t(key.number);
		auto raw = mem.value<uint64_t>(slot);
		if (!raw)
			return fail("array slot " + hex(slot) + " of table " + hex(t) +
				    " is unreadable");
		return *raw;
	}
	// A key is found by a scan of the hash part, not by its hash: the
	// string hash function differs between LuaJIT versions. The scan is
	// bounded by what LuaJIT allows a table.
	uint64_t nodes = uint64_t(*hmask) + 1;
	if (nodes > lj_limit::hash_nodes)
		return fail("table " + hex(t) + " claims " + std::to_string(nodes) +
			    " hash nodes, more than LuaJIT allows");
	for (uint64_t i = 0; i < nodes; i++) {
		uint64_t n = *node + i * ly.node_size;
		// Node: the value, then the key (lj_obj.h).
		auto val = mem.value<uint64_t>(n);
		auto k = mem.value<uint64_t>(n + 8);
		if (!val || !k)
			return fail("hash node " + hex(n) + " of table " + hex(t) +
				    " is unreadable");
		if (is_nil(ly, *val))
			continue;
		auto match = key_matches(mem, *k, key);
		if (!match)
			return std::unexpected(match.error());
		if (*match)
			return *val;
	}
	return ~uint64_t(0); // nil in both layouts
}

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
Expected<uint64_t> root_value(const LuaMemory &mem, const VmResult &vm, const LuaPath &p,
			      PrintedValue &out)
{
	const lj_layout &ly = mem.layout();
	switch (p.root) {
	case LuaPath::Root::globals: {
		out.root = "_G";
		uint64_t L = vm.current_thread ? vm.current_thread : vm.main_thread;
		auto env = mem.ref(L + ly.L_env);
		if (!env)
			return fail("the globals table of " + hex(L) + " is unreadable");
		return of_gc_object(ly, LJ_TTAB, *env);
	}
	case LuaPath::Root::registry: {
		out.root = "registry";
		auto raw = mem.value<uint64_t>(vm.global_state + ly.g_registrytv);
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

PrintedValue print_value(const LuaMemory &mem, const VmResult &vm, const PrintRequest &request,
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
	ValueReader reader(mem, vm.global_state, vm.current_thread, request.limits, symbolize);
	out.value = reader.of_raw(*raw);
	out.found = true;
	return out;
}

} // namespace ljcore
