// Every LuaJIT build under the given directories: the offsets derived from
// its code (analyzer/derive/) must equal its DWARF's, field by field. A
// stripped build is compared with the DWARF of the debug build of the same
// source and flavour (the -stripped variant's -debug sibling); Debian's
// binaries, which have no sibling, with the built-in table nearest to them.
// So must the members no code shows, as the derived layout moves them from
// the nearest table.
#include <cstdio>
#include <filesystem>
#include <vector>

#include <elfutils/libdw.h>
#include <fcntl.h>
#include <libelf.h>
#include <unistd.h>

#include "analyzer/derive/derive_layout.h"
#include "analyzer/locate/builtin_layouts.h"
#include "analyzer/locate/dwarf_layout.h"

using namespace ljcore;
namespace fs = std::filesystem;

namespace {

fs::path luajit_of(const fs::path &dir)
{
	fs::path exe = dir / "src" / "luajit";
	return fs::exists(exe) ? exe : dir / "b" / "src" / "luajit";
}

// The layout the DWARF of exe describes, its JIT's in jit (which it points
// to) when the build has the JIT.
std::optional<lj_layout> dwarf_layout(const fs::path &exe, Arch arch, lj_trace_layout &jit,
				      std::string &why)
{
	int fd = open(exe.c_str(), O_RDONLY);
	Dwarf *dw = fd >= 0 ? dwarf_begin(fd, DWARF_C_READ) : nullptr;
	std::optional<lj_layout> out;
	if (!dw) {
		why = "no DWARF in " + exe.string();
	} else if (auto [ly, jit_ly] = layouts_from_dwarf(dw, arch); ly) {
		out = *ly;
		out->jit = nullptr;
		if (jit_ly) {
			jit = *jit_ly;
			out->jit = &jit;
		}
	} else {
		why = ly.error().message;
	}
	if (dw)
		dwarf_end(dw);
	if (fd >= 0)
		close(fd);
	return out;
}

// The debug build whose DWARF describes variant's layout, if any.
std::optional<fs::path> reference_of(const fs::path &dir)
{
	std::string v = dir.filename();
	size_t at = v.find("-stripped");
	if (at == v.npos)
		return v.starts_with("distro-") ? std::nullopt : std::optional(luajit_of(dir));
	return luajit_of(dir.parent_path() / (v.substr(0, at) + "-debug" + v.substr(at + 9)));
}

bool check(const fs::path &dir)
{
	std::string variant = dir.filename();
	fs::path exe = luajit_of(dir);
	int fd = open(exe.c_str(), O_RDONLY);
	Elf *elf = fd >= 0 ? elf_begin(fd, ELF_C_READ_MMAP, nullptr) : nullptr;
	auto derived = derive_layout(elf);
	if (elf)
		elf_end(elf);
	if (fd >= 0)
		close(fd);
	if (!derived) {
		printf("FAIL %s: %s\n", variant.c_str(), derived.error().message.c_str());
		return false;
	}
	bool ok = true;
	for (auto &p : derived->problems) {
		printf("FAIL %s: %s\n", variant.c_str(), p.c_str());
		ok = false;
	}
	for (auto &u : derived->unshown)
		printf("note %s: not shown by its code: %s\n", variant.c_str(), u.c_str());
	std::optional<lj_layout> reference;
	lj_trace_layout reference_jit;
	std::string against, why;
	if (auto ref = reference_of(dir)) {
		reference = dwarf_layout(*ref, derived->arch, reference_jit, why);
		against = "DWARF of " + ref->parent_path().parent_path().filename().string();
	} else if (auto t = nearest_tables(builtin_layouts(derived->arch), *derived, true);
		   !t.empty()) {
		reference = *t.front();
		against = std::string("table ") + t.front()->name;
	}
	if (!reference) {
		printf("FAIL %s: nothing to compare with: %s\n", variant.c_str(), why.c_str());
		return false;
	}
	for (const DerivedField &f : derived->fields) {
		auto want = layout_field(*reference, f.name);
		if (want != f.value) {
			printf("FAIL %s: %s derived %u (%s), %s has %d\n", variant.c_str(),
			       f.name.c_str(), f.value, f.source.c_str(), against.c_str(),
			       want ? int(*want) : -1);
			ok = false;
		}
	}
	// The members no code shows, moved with the nearest shown one
	// (with_derived) from the nearest table, which memory tries first.
	auto nearest = nearest_tables(builtin_layouts(derived->arch), *derived, true);
	if (nearest.empty()) {
		printf("FAIL %s: no table of its pointer size\n", variant.c_str());
		return false;
	}
	lj_trace_layout jit;
	lj_layout ly = with_derived(*nearest.front(), *derived, jit);
	for (const char *name : moved_fields()) {
		auto want = layout_field(*reference, name), got = layout_field(ly, name);
		if (want != got) {
			printf("FAIL %s: %s from the table %s moved to %d, %s has %d\n",
			       variant.c_str(), name, nearest.front()->name, got ? int(*got) : -1,
			       against.c_str(), want ? int(*want) : -1);
			ok = false;
		}
	}
	if (ok)
		printf("ok   %s: %zu fields derived = %s, and those moved\n", variant.c_str(),
		       derived->fields.size(), against.c_str());
	return ok;
}

} // namespace

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s BUILD_LUAJIT_DIR...\n", argv[0]);
		return 2;
	}
	elf_version(EV_CURRENT);
	int checked = 0, failed = 0;
	std::error_code ec;
	std::vector<fs::path> dirs;
	for (int i = 1; i < argc; i++)
		for (auto &entry : fs::directory_iterator(argv[i], ec))
			if (fs::exists(luajit_of(entry.path())))
				dirs.push_back(entry.path());
	std::sort(dirs.begin(), dirs.end());
	for (auto &dir : dirs) {
		checked++;
		failed += check(dir) ? 0 : 1;
	}
	if (checked == 0) {
		printf("skip: no LuaJIT build under %s (run tools/build-luajit.sh)\n", argv[1]);
		return 77;
	}
	return failed ? 1 : 0;
}
