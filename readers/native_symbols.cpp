// NativeSession's modules and symbols: which module and symbol cover an
// address, symbols by name, and each module's table read once.
#include "readers/native_stack.h"

#include <cstring>
#include <string>



namespace ljcore {

namespace {

std::string base_name(const char *path)
{
	if (!path)
		return "";
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

} // namespace

Dwfl_Module *NativeSession::module_at(uint64_t addr) const
{
	return dwfl_addrmodule(dwfl_, addr);
}

const ModuleSymbols &NativeSession::symbols_of(Dwfl_Module *mod) const
{
	std::unique_ptr<ModuleSymbols> &table = tables_[mod];
	if (!table)
		table = std::make_unique<ModuleSymbols>(mod);
	return *table;
}

std::optional<SymbolInfo> NativeSession::symbol_at(uint64_t addr) const
{
	if (auto hit = symbols_.find(addr); hit != symbols_.end())
		return hit->second;
	if (symbols_.size() >= max_cached_symbols)
		symbols_.clear();
	std::optional<SymbolInfo> &found = symbols_[addr];
	Dwfl_Module *mod = dwfl_addrmodule(dwfl_, addr);
	if (!mod)
		return found;
	auto sym = symbols_of(mod).covering(addr);
	if (!sym)
		return found;
	const char *modname = dwfl_module_info(mod, nullptr, nullptr, nullptr, nullptr, nullptr,
					       nullptr, nullptr);
	found = SymbolInfo{sym->name, sym->value, sym->size, base_name(modname)};
	return found;
}

namespace {

// Libraries no LuaJIT lives in. A search by name looks at them last: their
// symbol tables (and the search for their debuginfo files) cost more than
// the rest of a backtrace, and what ljcore looks up is LuaJIT's.
bool system_library(const char *modname)
{
	static constexpr std::string_view names[] = {
		"libc.so",     "libm.so",       "ld-linux",     "libgcc_s.so", "libstdc++.so",
		"libdl.so",    "libpthread.so", "librt.so",     "[vdso]",      "linux-vdso",
		"libcrypt.so", "libz.so",       "libcrypto.so", "libssl.so",   "libpcre",
	};
	std::string base = base_name(modname);
	for (std::string_view n : names)
		if (base.starts_with(n))
			return true;
	return false;
}

struct SymbolSearch {
	const NativeSession &session;
	const std::string &name, &hint;
	bool system; // this pass looks at the system libraries only
	std::optional<SymbolInfo> found;
};

int search_module(Dwfl_Module *mod, void **, const char *modname, Dwarf_Addr, void *arg)
{
	auto *s = static_cast<SymbolSearch *>(arg);
	if (system_library(modname) != s->system)
		return DWARF_CB_OK;
	if (!s->hint.empty() && (!modname || !strstr(modname, s->hint.c_str())))
		return DWARF_CB_OK;
	if (auto sym = s->session.symbols_of(mod).named(s->name)) {
		s->found = SymbolInfo{sym->name, sym->value, sym->size, base_name(modname)};
		return DWARF_CB_ABORT;
	}
	return DWARF_CB_OK;
}

} // namespace

std::optional<SymbolInfo> NativeSession::symbol_by_name(const std::string &name,
							const std::string &hint) const
{
	SymbolSearch search{*this, name, hint, false, std::nullopt};
	for (bool system : {false, true}) {
		search.system = system;
		dwfl_getmodules(dwfl_, search_module, &search, 0);
		if (search.found)
			break;
	}
	return search.found;
}

std::string NativeSession::function_at(uint64_t addr) const
{
	auto sym = symbol_at(addr);
	return sym && sym->addr == addr ? sym->name : std::string();
}

std::vector<ModuleInfo> NativeSession::modules() const
{
	std::vector<ModuleInfo> out;
	dwfl_getmodules(
		dwfl_,
		[](Dwfl_Module *mod, void **, const char *name, Dwarf_Addr, void *arg) -> int {
			auto *v = static_cast<std::vector<ModuleInfo> *>(arg);
			ModuleInfo m;
			m.name = name ? name : "";
			const char *file = nullptr;
			dwfl_module_info(mod, nullptr, &m.low, &m.high, nullptr, nullptr, &file,
					 nullptr);
			GElf_Addr bias;
			if (dwfl_module_getelf(mod, &bias)) {
				const char *f = nullptr;
				dwfl_module_info(mod, nullptr, nullptr, nullptr, nullptr, nullptr,
						 &f, nullptr);
				m.file = f ? f : "";
				m.has_symbols = dwfl_module_getsymtab(mod) > 0;
			}
			const unsigned char *bits;
			GElf_Addr vaddr;
			int n = dwfl_module_build_id(mod, &bits, &vaddr);
			if (n > 0)
				m.build_id = hex_string(bits, size_t(n));
			v->push_back(std::move(m));
			return DWARF_CB_OK;
		},
		&out, 0);
	return out;
}

Dwarf *NativeSession::module_dwarf(Dwfl_Module *mod, uint64_t *bias) const
{
	Dwarf_Addr b = 0;
	Dwarf *dw = dwfl_module_getdwarf(mod, &b);
	*bias = b;
	return dw;
}

} // namespace ljcore
