#include "analyzer/locate/version_hint.h"

#include <algorithm>

#include "analyzer/locate/layout_versions.h"
#include "analyzer/stack/lua_symbolize.h"

namespace ljcore {

namespace {

std::string joined(const std::vector<std::string> &names)
{
	std::string out;
	for (auto &n : names)
		out += (out.empty() ? "" : ", ") + n;
	return out;
}

} // namespace

std::optional<VersionString> version_hint(const Memory &mem, const NativeSession &native,
					  std::vector<const lj_layout *> &builtin,
					  std::vector<std::string> &evidence)
{
	auto sym = native.symbol_by_name("luaJIT_setmode");
	if (!sym) {
		evidence.push_back("version string: not looked for, no module exports "
				   "luaJIT_setmode");
		return std::nullopt;
	}
	auto modules = native.modules();
	auto mod = std::ranges::find_if(modules, [&](const ModuleInfo &m) {
		return m.low <= sym->addr && sym->addr < m.high;
	});
	if (mod == modules.end()) {
		evidence.push_back("version string: not looked for, no module spans "
				   "luaJIT_setmode at " +
				   luajit_pointer(sym->addr));
		return std::nullopt;
	}
	auto found = find_luajit_version(mem, mod->low, mod->high);
	if (!found) {
		// Kernel cores keep only the first page of a file's mapping:
		// the rest comes from the file, when it is on this machine.
		evidence.push_back("version string: none in what the core or the file holds of " +
				   mod->name);
		return std::nullopt;
	}
	VersionString hint{found->version.text, found->addr, mod->name, {}};
	for (const lj_layout *ly : layouts_for_version(builtin, found->version))
		hint.layouts.push_back(ly->name);
	order_by_version(builtin, found->version);
	std::string where = hint.text + " at " + luajit_pointer(hint.addr) + " in " + hint.module;
	if (hint.layouts.empty())
		evidence.push_back(
			"version string: " + where +
			" (a hint, never proof; no built-in table is known to carry it)");
	else
		evidence.push_back("version string: " + where +
				   " (a hint, never proof; built-in tables that carry it, tried "
				   "first: " +
				   joined(hint.layouts) + ")");
	return hint;
}

void compare_with_hint(const std::optional<VersionString> &hint, VmResult &v,
		       std::vector<std::string> &evidence)
{
	if (!hint || hint->layouts.empty())
		return;
	v.layout_matches_version =
		std::ranges::find(hint->layouts, v.layout) != hint->layouts.end();
	if (!*v.layout_matches_version)
		evidence.push_back("VM " + luajit_pointer(v.global_state) + ": layout " + v.layout +
				   " fits memory, though the version string " + hint->text +
				   " suggested " + joined(hint->layouts) +
				   "; memory decides, the string is only a hint");
}

} // namespace ljcore
