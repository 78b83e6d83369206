#include "analyzer/locate/version_hint.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include <gelf.h>

#include "analyzer/locate/layout_versions.h"
#include "analyzer/lua/lua_debug.h"

namespace ljcore {

namespace {

std::string joined(const std::vector<std::string> &names)
{
	std::string out;
	for (auto &n : names)
		out += (out.empty() ? "" : ", ") + n;
	return out;
}

// The module's .rodata, where compilers put string literals, as its file's
// section headers place it (strip keeps them); nothing without the file or
// when they place it outside the module.
std::optional<std::pair<uint64_t, uint64_t>> rodata_of(Dwfl_Module *mod, uint64_t low,
						       uint64_t high)
{
	GElf_Addr bias;
	Elf *elf = dwfl_module_getelf(mod, &bias);
	size_t shstrndx;
	if (!elf || elf_getshdrstrndx(elf, &shstrndx) != 0)
		return std::nullopt;
	for (Elf_Scn *scn = nullptr; (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC))
			continue;
		const char *name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name || strcmp(name, ".rodata") != 0)
			continue;
		uint64_t start = sh.sh_addr + bias;
		if (start < low || start >= high || sh.sh_size > high - start)
			return std::nullopt;
		return std::pair(start, start + sh.sh_size);
	}
	return std::nullopt;
}

} // namespace

std::optional<VersionString> version_hint(const Memory &mem, const NativeSession &native,
					  const std::optional<SymbolInfo> &sym,
					  std::vector<const lj_layout *> &builtin,
					  Diagnostics &diag)
{
	if (!sym) {
		diag.evidence("version string: not looked for, no module exports "
				   "luaJIT_setmode");
		return std::nullopt;
	}
	Dwfl_Module *mod = native.module_at(sym->addr);
	Dwarf_Addr low = 0, high = 0;
	const char *name = mod ? dwfl_module_info(mod, nullptr, &low, &high, nullptr, nullptr,
						  nullptr, nullptr)
			       : nullptr;
	if (!mod || !(low <= sym->addr && sym->addr < high)) {
		diag.evidence("version string: not looked for, no module spans "
				   "luaJIT_setmode at " +
				   luajit_pointer(sym->addr));
		return std::nullopt;
	}
	std::string module = name ? name : "";
	// .rodata first: it is where the string is, and a small part of the
	// module (the whole of a big host binary takes milliseconds to read).
	std::optional<FoundVersion> found;
	if (auto rodata = rodata_of(mod, low, high))
		found = find_luajit_version(mem, rodata->first, rodata->second);
	if (!found)
		found = find_luajit_version(mem, low, high);
	if (!found) {
		// Kernel cores keep only the first page of a file's mapping:
		// the rest comes from the file, when it is on this machine.
		diag.evidence("version string: none in what the core or the file holds of " +
				   module);
		return std::nullopt;
	}
	VersionString hint{found->version.text, found->addr, module, {}};
	for (const lj_layout *ly : layouts_for_version(builtin, found->version))
		hint.layouts.push_back(ly->name);
	order_by_version(builtin, found->version);
	std::string where = hint.text + " at " + luajit_pointer(hint.addr) + " in " + hint.module;
	if (hint.layouts.empty())
		diag.evidence(
			"version string: " + where +
			" (a hint, never proof; no built-in table is known to carry it)");
	else
		diag.evidence("version string: " + where +
				   " (a hint, never proof; built-in tables that carry it, tried "
				   "first: " +
				   joined(hint.layouts) + ")");
	return hint;
}

void compare_with_hint(const std::optional<VersionString> &hint, VmResult &v,
		       Diagnostics &diag)
{
	if (!hint || hint->layouts.empty())
		return;
	v.layout_matches_version =
		std::ranges::find(hint->layouts, v.layout) != hint->layouts.end();
	if (!*v.layout_matches_version)
		diag.evidence("VM " + luajit_pointer(v.global_state) + ": layout " + v.layout +
				   " fits memory, though the version string " + hint->text +
				   " suggested " + joined(hint->layouts) +
				   "; memory decides, the string is only a hint");
}

} // namespace ljcore
