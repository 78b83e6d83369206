// Every LuaJIT debug build under the given directories: the layout its DWARF
// describes must equal one of the built-in tables, which serve stripped
// binaries of the same flavour, and the fields derived from it must be where
// the DWARF has them. On a mismatch the DWARF values are printed
// as an initializer to compare with luajit/layouts.h.
#include <cstdio>
#include <filesystem>
#include <vector>

#include <elfutils/libdw.h>
#include <fcntl.h>
#include <unistd.h>

#include "analyzer/locate/builtin_layouts.h"
#include "analyzer/locate/dwarf_layout.h"

using namespace ljcore;
namespace fs = std::filesystem;

// The JIT layout of the same build: its DWARF must equal the built-in table
// of the flavour, and a build without the JIT must have neither.
static bool check_trace_layout(Dwarf *dw, const std::string &variant, const lj_layout &match)
{
	auto dwarf = trace_layout_from_dwarf(dw);
	const lj_trace_layout *builtin = match.jit;
	if (!dwarf || !builtin) {
		if (!dwarf && !builtin) {
			printf("ok   %s has no JIT: %s\n", variant.c_str(),
			       dwarf.error().message.c_str());
			return true;
		}
		printf("FAIL %s: JIT layout %s\n", variant.c_str(),
		       dwarf ? "in DWARF, but no built-in table"
			     : ("in a table, not in DWARF: " + dwarf.error().message).c_str());
		return false;
	}
	auto diff = trace_layout_differences(*dwarf, *builtin);
	if (diff.empty()) {
		printf("ok   %s JIT = %s\n", variant.c_str(), builtin->name);
		return true;
	}
	printf("FAIL %s: JIT layout differs from %s:", variant.c_str(), builtin->name);
	for (auto &d : diff)
		printf(" %s;", d.c_str());
	printf("\n");
	return false;
}

// What profile --alloc derives from g->gc.total (luajit/layout.h): the
// allocator and its data right before GCState, and its state byte.
static bool check_derived(Dwarf *dw, const std::string &variant, const lj_layout &ly)
{
	struct {
		const char *path;
		uint32_t derived;
	} fields[] = {{"allocf", uint32_t(LJ_G_ALLOCF(&ly))},
		      {"allocd", uint32_t(LJ_G_ALLOCD(&ly))},
		      {"gc.state", uint32_t(LJ_G_GC_STATE(&ly))}};
	bool ok = true;
	for (auto &f : fields) {
		auto dwarf = dwarf_member_offset(dw, "global_State", f.path);
		if (!dwarf || *dwarf != f.derived) {
			printf("FAIL %s: global_State.%s is at %d in DWARF, derived %u\n",
			       variant.c_str(), f.path, dwarf ? int(*dwarf) : -1, f.derived);
			ok = false;
		}
	}
	return ok;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s BUILD_LUAJIT_DIR...\n", argv[0]);
		return 2;
	}
	int checked = 0, failed = 0;
	std::error_code ec;
	// More directories check builds made by hand, e.g. of a new release;
	// a CMake build (Tarantool's fork) keeps its luajit in b/src.
	std::vector<fs::directory_entry> entries;
	for (int i = 1; i < argc; i++)
		for (auto &entry : fs::directory_iterator(argv[i], ec))
			entries.push_back(entry);
	for (auto &entry : entries) {
		std::string variant = entry.path().filename();
		fs::path exe = entry.path() / "src" / "luajit";
		if (!fs::exists(exe))
			exe = entry.path() / "b" / "src" / "luajit";
		// Builds with DWARF only (-debug, and -nojit, which keeps it too):
		// stripped ones have nothing to check against.
		bool arm64 = variant.ends_with("-arm64");
		std::string kind = arm64 ? variant.substr(0, variant.size() - 6) : variant;
		if (!(kind.ends_with("-debug") || kind.ends_with("-nojit")) || !fs::exists(exe))
			continue;
		Arch arch = arm64 ? Arch::aarch64 : Arch::x86_64;
		int fd = open(exe.c_str(), O_RDONLY);
		Dwarf *dw = fd >= 0 ? dwarf_begin(fd, DWARF_C_READ) : nullptr;
		if (!dw) {
			printf("FAIL %s: no DWARF in %s\n", variant.c_str(), exe.c_str());
			failed++;
			continue;
		}
		auto ly = layout_from_dwarf(dw, arch);
		checked++;
		if (!ly) {
			printf("FAIL %s: %s\n", variant.c_str(), ly.error().message.c_str());
			failed++;
		} else {
			const lj_layout *match = nullptr;
			for (auto *b : builtin_layouts(arch))
				if (layout_differences(*ly, *b).empty())
					match = b;
			if (match) {
				printf("ok   %s = %s\n", variant.c_str(), match->name);
				failed += check_trace_layout(dw, variant, *match) ? 0 : 1;
				failed += check_derived(dw, variant, *ly) ? 0 : 1;
			} else {
				printf("FAIL %s: no built-in table equals its DWARF layout:\n",
				       variant.c_str());
				fputs(layout_initializer(*ly).c_str(), stdout);
				failed++;
			}
		}
		dwarf_end(dw);
		close(fd);
	}
	if (checked == 0) {
		printf("skip: no LuaJIT debug build under %s (run tools/build-luajit.sh)\n",
		       argv[1]);
		return 77;
	}
	return failed ? 1 : 0;
}
