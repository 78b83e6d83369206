#include "analyzer/derive/exported_code.h"

#include <algorithm>
#include <charconv>
#include <elf.h>
#include <gelf.h>
#include <iterator>

#include "readers/arch/arch.h"

namespace ljcore {

namespace {

// "0x1f": with to_chars, not snprintf, as every field derived names the
// instruction it came from this way.
std::string hex(uint64_t v)
{
	char buf[2 + 16] = {'0', 'x'};
	return std::string(buf, std::to_chars(buf + 2, std::end(buf), v, 16).ptr);
}

} // namespace

std::string FunctionCode::at(uint64_t insn) const
{
	return name + "+" + hex(insn - addr);
}

Expected<ExportedCode> ExportedCode::open(Elf *elf)
{
	GElf_Ehdr ehdr;
	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &ehdr))
		return fail("not an ELF file");
	auto arch = arch_of_machine(ehdr.e_machine);
	if (!arch)
		return fail("ELF machine " + std::to_string(ehdr.e_machine) +
			    " is neither x86_64 nor aarch64");
	ExportedCode code;
	code.elf_ = elf;
	code.arch_ = *arch;
	// .dynsym first: every LuaJIT keeps it; .symtab adds nothing to the
	// exported names but is read when the dynamic table is gone.
	for (Elf64_Word type : {SHT_DYNSYM, SHT_SYMTAB}) {
		for (Elf_Scn *scn = nullptr; (scn = elf_nextscn(elf, scn));) {
			GElf_Shdr shdr;
			if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != type ||
			    shdr.sh_entsize == 0)
				continue;
			Elf_Data *data = elf_getdata(scn, nullptr);
			if (!data)
				continue;
			size_t count = std::min<size_t>(shdr.sh_size / shdr.sh_entsize, 1 << 20);
			for (size_t i = 0; i < count; i++) {
				GElf_Sym sym;
				if (!gelf_getsym(data, int(i), &sym) ||
				    GELF_ST_TYPE(sym.st_info) != STT_FUNC || sym.st_value == 0)
					continue;
				const char *name = elf_strptr(elf, shdr.sh_link, sym.st_name);
				if (name && name[0] == 'l' && (name[1] == 'u'))
					code.symbols_.push_back({name, sym.st_value, sym.st_size});
			}
		}
		if (!code.symbols_.empty())
			break;
	}
	if (code.symbols_.empty())
		return fail("no exported lua_* or luaJIT_* function");
	return code;
}

bool ExportedCode::exports(const std::string &name) const
{
	return std::any_of(symbols_.begin(), symbols_.end(),
			   [&](const Symbol &s) { return s.name == name; });
}

Expected<FunctionCode> ExportedCode::function(const std::string &name, size_t max_bytes) const
{
	auto it = std::find_if(symbols_.begin(), symbols_.end(),
			       [&](const Symbol &s) { return s.name == name; });
	if (it == symbols_.end())
		return fail(name + " is not exported");
	size_t size = it->size ? std::min<size_t>(it->size, max_bytes) : max_bytes;
	auto code = code_at(it->addr, size);
	if (!code)
		return fail(name + ": " + code.error().message);
	code->name = name;
	return code;
}

Expected<std::span<const uint8_t>> ExportedCode::bytes_at(uint64_t addr, bool code) const
{
	const char *what = code ? "code" : "data";
	for (Elf_Scn *scn = nullptr; (scn = elf_nextscn(elf_, scn));) {
		GElf_Shdr shdr;
		if (!gelf_getshdr(scn, &shdr))
			continue;
		// Thread-local sections share their addresses with what follows.
		bool wanted = code ? (shdr.sh_flags & SHF_EXECINSTR)
				   : (shdr.sh_flags & SHF_ALLOC) && !(shdr.sh_flags & SHF_TLS);
		if (!wanted || addr < shdr.sh_addr || addr - shdr.sh_addr >= shdr.sh_size)
			continue;
		if (shdr.sh_type != SHT_PROGBITS)
			return fail(std::string(what) + " at " + hex(addr) + " is not in the file");
		Elf_Data *data = elf_getdata(scn, nullptr);
		uint64_t off = addr - shdr.sh_addr;
		if (!data || !data->d_buf || off >= data->d_size)
			return fail(std::string(what) + " at " + hex(addr) +
				    " is past the end of the file");
		auto *p = static_cast<const uint8_t *>(data->d_buf) + off;
		return std::span(p, data->d_size - off);
	}
	return fail(hex(addr) +
		    (code ? " is outside every executable section" : " is outside every section"));
}

Expected<FunctionCode> ExportedCode::code_at(uint64_t addr, size_t max_bytes) const
{
	auto bytes = bytes_at(addr, true);
	if (!bytes)
		return std::unexpected(bytes.error());
	auto code = bytes->first(std::min(max_bytes, bytes->size()));
	return FunctionCode{"", addr, std::vector<uint8_t>(code.begin(), code.end())};
}

Expected<uint64_t> ExportedCode::word_at(uint64_t addr, unsigned width) const
{
	if (width == 0 || width > 8)
		return fail("no word is " + std::to_string(width) + " bytes");
	auto bytes = bytes_at(addr, false);
	if (!bytes)
		return std::unexpected(bytes.error());
	if (bytes->size() < width)
		return fail(hex(addr) + " is not in the file's data");
	uint64_t word = 0;
	for (unsigned i = 0; i < width; i++)
		word |= uint64_t((*bytes)[i]) << (8 * i);
	if (word)
		return word;
	uint64_t mask = width == 8 ? ~uint64_t(0) : (uint64_t(1) << (8 * width)) - 1;
	return relative_addend(addr).value_or(0) & mask;
}

std::optional<uint64_t> ExportedCode::relative_addend(uint64_t addr) const
{
	GElf_Ehdr ehdr;
	if (!gelf_getehdr(elf_, &ehdr))
		return std::nullopt;
	const unsigned relative =
		ehdr.e_machine == EM_AARCH64 ? R_AARCH64_RELATIVE : R_X86_64_RELATIVE;
	for (Elf_Scn *scn = nullptr; (scn = elf_nextscn(elf_, scn));) {
		GElf_Shdr shdr;
		if (!gelf_getshdr(scn, &shdr) || shdr.sh_type != SHT_RELA ||
		    !(shdr.sh_flags & SHF_ALLOC) || shdr.sh_entsize == 0)
			continue;
		Elf_Data *data = elf_getdata(scn, nullptr);
		size_t count = data ? std::min<size_t>(data->d_size / shdr.sh_entsize, 1 << 20) : 0;
		for (size_t i = 0; i < count; i++) {
			GElf_Rela rela;
			if (gelf_getrela(data, int(i), &rela) && rela.r_offset == addr &&
			    GELF_R_TYPE(rela.r_info) == relative)
				return uint64_t(rela.r_addend);
		}
	}
	return std::nullopt;
}

} // namespace ljcore
