#include "analyzer/locate/derived_once.h"

#include <map>
#include <mutex>
#include <string>

#include "readers/native_stack.h"

namespace ljcore {

Expected<DerivedLayout> derived_once(Dwfl_Module *mod, Elf *elf, bool *read_before)
{
	if (read_before)
		*read_before = false;
	const unsigned char *id = nullptr;
	GElf_Addr id_at;
	int id_size = dwfl_module_build_id(mod, &id, &id_at);
	const char *file = nullptr;
	dwfl_module_info(mod, nullptr, nullptr, nullptr, nullptr, nullptr, &file, nullptr);
	std::string key = id_size > 0
				  ? "build-id " + std::string(reinterpret_cast<const char *>(id),
							      size_t(id_size))
			  : file ? std::string("path ") + file
				 : "";
	if (key.empty())
		return derive_layout(elf);
	static std::mutex lock;
	static std::map<std::string, Expected<DerivedLayout>> done;
	std::lock_guard hold(lock);
	auto it = done.find(key);
	if (it == done.end())
		it = done.emplace(key, derive_layout(elf)).first;
	else if (read_before)
		*read_before = true;
	return it->second;
}

void derive_before_stopping(int32_t pid, LayoutChoice layout)
{
	if (layout == LayoutChoice::tables)
		return;
	auto native = NativeSession::open_modules(pid);
	if (!native)
		return;
	// LuaJIT's module, as candidate_layouts finds it.
	auto sym = (*native)->symbol_by_name("luaJIT_setmode");
	Dwfl_Module *mod = sym ? (*native)->module_at(sym->addr) : nullptr;
	uint64_t bias;
	// With DWARF, candidate_layouts reads the code only for --layout
	// derived.
	if (!mod || (layout != LayoutChoice::derived && (*native)->module_dwarf(mod, &bias)))
		return;
	Dwarf_Addr elf_bias;
	if (Elf *elf = dwfl_module_getelf(mod, &elf_bias))
		derived_once(mod, elf);
}

} // namespace ljcore
