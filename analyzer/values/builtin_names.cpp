#include "analyzer/values/builtin_names.h"

#include <optional>

#include "analyzer/lua/function.h"
#include "analyzer/lua/global_state.h"
#include "analyzer/lua/table.h"
#include "analyzer/lua/tvalue.h"
#include "analyzer/values/lua_table.h"
#include "luajit/bytecode.h"

namespace ljcore {

namespace {

using namespace tvalue;

// The standard libraries have a few dozen modules of at most a few dozen
// functions: enough room for them and for what a program adds.
constexpr size_t max_modules = 256, max_functions = 1024;
constexpr uint32_t max_name = 64;

std::optional<std::string> string_key(const Vm &mem, uint64_t raw)
{
	if (itype(mem.layout(), raw) != ~uint32_t(LJ_TSTR))
		return std::nullopt;
	auto s = mem.str(gc_object(mem.layout(), raw), max_name);
	return s ? std::optional(*s) : std::nullopt;
}

std::optional<uint64_t> table_of(const Vm &mem, uint64_t raw)
{
	if (itype(mem.layout(), raw) != ~uint32_t(LJ_TTAB))
		return std::nullopt;
	return gc_object(mem.layout(), raw);
}

} // namespace

std::unordered_map<uint64_t, std::string> builtin_names(const Vm &mem)
{
	const lj_layout &ly = mem.layout();
	std::unordered_map<uint64_t, std::string> names;
	auto registry_raw = GlobalState(mem).registry();
	auto registry = registry_raw ? table_of(mem, *registry_raw) : std::nullopt;
	if (!registry)
		return names;
	LuaKey loaded_key;
	loaded_key.bytes = "_LOADED";
	auto loaded_raw = table_get(mem, *registry, loaded_key);
	auto loaded = loaded_raw ? table_of(mem, *loaded_raw) : std::nullopt;
	if (!loaded)
		return names;
	(void)table_each(mem, *loaded, max_modules, [&](uint64_t k, uint64_t v) {
		auto module = string_key(mem, k);
		auto t = table_of(mem, v);
		if (!module || !t)
			return;
		(void)table_each(mem, *t, max_functions, [&](uint64_t fk, uint64_t fv) {
			auto name = string_key(mem, fk);
			if (!name || itype(ly, fv) != ~uint32_t(LJ_TFUNC))
				return;
			uint64_t fn = gc_object(ly, fv);
			auto ffid = Function(mem, fn).ffid();
			if (!ffid || *ffid <= LJ_FF_C)
				return;
			// A global's own name wins: pcall, not _G.pcall.
			if (*module == "_G")
				names[fn] = *name;
			else
				names.emplace(fn, *module + "." + *name);
		});
	});
	return names;
}

} // namespace ljcore
