#include "analyzer/derive/binary_layout.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

#include <elfutils/libdw.h>

#include "analyzer/derive/derive_layout.h"
#include "analyzer/locate/builtin_layouts.h"
#include "analyzer/locate/dwarf_layout.h"
#include "readers/arch/arch.h"

namespace ljcore {

namespace {

// An open file, its ELF and DWARF handles, closed in reverse.
struct OpenBinary {
	int fd = -1;
	Elf *elf = nullptr;
	Dwarf *dwarf = nullptr;
	~OpenBinary()
	{
		if (dwarf)
			dwarf_end(dwarf);
		if (elf)
			elf_end(elf);
		if (fd >= 0)
			close(fd);
	}
};

} // namespace

Expected<BinaryLayoutReport> binary_layout(const std::string &path)
{
	OpenBinary bin;
	bin.fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
	if (bin.fd < 0)
		return fail(path + ": " + strerror(errno));
	elf_version(EV_CURRENT);
	bin.elf = elf_begin(bin.fd, ELF_C_READ_MMAP, nullptr);
	auto derived = derive_layout(bin.elf);
	if (!derived)
		return fail(path + ": " + derived.error().message);
	BinaryLayoutReport r;
	r.path = path;
	r.arch = arch_name(derived->arch);
	r.problems = derived->problems;
	r.unshown = derived->unshown;
	auto nearest = nearest_tables(builtin_layouts(derived->arch), *derived, true);
	const lj_layout *table = nearest.empty() ? nullptr : nearest.front();
	if (!table)
		return fail(path + ": no built-in table for " + r.arch);
	r.table = table->name;
	for (size_t i = 1; i < nearest.size(); i++)
		r.equals.push_back(nearest[i]->name);
	std::optional<lj_layout> dwarf;
	std::optional<lj_trace_layout> dwarf_jit;
	bin.dwarf = dwarf_begin(bin.fd, DWARF_C_READ);
	if (bin.dwarf) {
		auto [ly, jit] = layouts_from_dwarf(bin.dwarf, derived->arch);
		if (ly) {
			dwarf = *ly;
			// The JIT's fields are compared with the same DWARF's.
			dwarf->jit = jit ? &dwarf_jit.emplace(*jit) : nullptr;
		} else {
			r.dwarf_error = ly.error().message;
		}
	} else {
		r.dwarf_error = "no DWARF";
	}
	r.has_dwarf = dwarf.has_value();
	for (const DerivedField &f : derived->fields) {
		LayoutFieldReport field{f.name, f.value, f.source,
					layout_field(*table, f.name).value_or(0), std::nullopt};
		if (dwarf)
			field.dwarf = layout_field(*dwarf, f.name);
		r.fields.push_back(field);
	}
	return r;
}

} // namespace ljcore
