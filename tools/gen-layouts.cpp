// Prints the layout tables (luajit/layouts.h, luajit/trace_layouts.h) of
// LuaJIT binaries that carry DWARF, one table per epoch: binaries whose
// object and JIT layouts are equal share one, and its comment lists the
// revisions it covers. It reads binaries, it builds nothing.
//
// Usage: gen-layouts [--new-only] NAME:REVISION:BINARY...
//   --new-only  print only the epochs no built-in table covers yet: what
//               a new LuaJIT release needs added to luajit/layouts.h
//   NAME     the table's name, lj_layout_NAME (the first binary of an
//            epoch names it), e.g. upstream_2025_gc64_x64
//   REVISION what the binary was built from, e.g. "LuaJIT v2.1 1ee778a4"
//   BINARY   a luajit executable or libluajit with DWARF (built with -g)
// The time taken goes to stderr.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gelf.h>
#include <unistd.h>

#include "analyzer/locate/builtin_layouts.h"
#include "analyzer/locate/dwarf_layout.h"

using namespace ljcore;

namespace {

struct Build {
	std::string name, revision, path;
	Arch arch = Arch::x86_64;
	lj_layout layout{};
	bool has_jit = false;
	lj_trace_layout jit{};
};

struct Epoch {
	std::vector<const Build *> builds;
};

bool same_layouts(const lj_layout &a, const lj_trace_layout *a_jit, const lj_layout &b,
		  const lj_trace_layout *b_jit)
{
	if (!layout_differences(a, b).empty() || !a_jit != !b_jit)
		return false;
	return !a_jit || trace_layout_differences(*a_jit, *b_jit).empty();
}

const lj_trace_layout *jit_of(const Build &b)
{
	return b.has_jit ? &b.jit : nullptr;
}

bool same_epoch(const Build &a, const Build &b)
{
	return a.arch == b.arch && same_layouts(a.layout, jit_of(a), b.layout, jit_of(b));
}

// The built-in table that already describes b's epoch, if any.
const lj_layout *builtin_table(const Build &b)
{
	for (const lj_layout *ly : builtin_layouts(b.arch))
		if (same_layouts(*ly, ly->jit, b.layout, jit_of(b)))
			return ly;
	return nullptr;
}

// Reads both layouts of one binary; the error names the binary.
Expected<Build> read_build(const std::string &arg)
{
	size_t c1 = arg.find(':'), c2 = c1 == arg.npos ? c1 : arg.find(':', c1 + 1);
	if (c2 == arg.npos)
		return fail("'" + arg + "' is not NAME:REVISION:BINARY");
	Build b{arg.substr(0, c1), arg.substr(c1 + 1, c2 - c1 - 1), arg.substr(c2 + 1)};
	int fd = open(b.path.c_str(), O_RDONLY);
	if (fd < 0)
		return fail(b.path + ": cannot open");
	Dwarf *dw = dwarf_begin(fd, DWARF_C_READ);
	if (!dw) {
		close(fd);
		return fail(b.path + ": no DWARF (build it with -g)");
	}
	GElf_Ehdr ehdr;
	Arch arch = gelf_getehdr(dwarf_getelf(dw), &ehdr) && ehdr.e_machine == EM_AARCH64
			    ? Arch::aarch64
			    : Arch::x86_64;
	b.arch = arch;
	auto ly = layout_from_dwarf(dw, arch);
	auto jit = trace_layout_from_dwarf(dw);
	dwarf_end(dw);
	close(fd);
	if (!ly)
		return fail(b.path + ": " + ly.error().message);
	b.layout = *ly;
	b.has_jit = bool(jit);
	if (jit)
		b.jit = *jit;
	return b;
}

// The name ljcore shows for a table: its C name in words.
std::string title(std::string name)
{
	std::replace(name.begin(), name.end(), '_', ' ');
	return name;
}

void print_epoch(const Epoch &e, bool new_only)
{
	const Build &first = *e.builds.front();
	const lj_layout *known = builtin_table(first);
	printf("/* Covers:\n");
	for (const Build *b : e.builds)
		printf(" *   %s\n", b->revision.c_str());
	if (known)
		printf(" * as the built-in table \"%s\" does.\n", known->name);
	printf(" */\n");
	if (known && new_only)
		return;
	if (first.has_jit) {
		printf("static const struct lj_trace_layout lj_trace_layout_%s = {\n",
		       first.name.c_str());
		printf("\t.name = \"%s\",\n", title(first.name).c_str());
		fputs(trace_layout_initializer(first.jit).c_str(), stdout);
		printf("};\n\n");
	}
	printf("static const struct lj_layout lj_layout_%s = {\n", first.name.c_str());
	printf("\t.name = \"%s\",\n", title(first.name).c_str());
	fputs(layout_initializer(first.layout).c_str(), stdout);
	// Every member is set (-Wmissing-field-initializers), .jit too.
	if (first.has_jit)
		printf("\t.jit = &lj_trace_layout_%s,\n", first.name.c_str());
	else
		printf("\t.jit = 0, /* no jit_State */\n");
	printf("};\n\n");
}

} // namespace

int main(int argc, char **argv)
{
	int first_arg = 1;
	bool new_only = argc > 1 && std::string(argv[1]) == "--new-only";
	if (new_only)
		first_arg++;
	if (argc <= first_arg) {
		fprintf(stderr, "usage: %s [--new-only] NAME:REVISION:BINARY...\n", argv[0]);
		return 2;
	}
	auto start = std::chrono::steady_clock::now();
	std::vector<Build> builds;
	for (int i = first_arg; i < argc; i++) {
		auto b = read_build(argv[i]);
		if (!b) {
			fprintf(stderr, "gen-layouts: %s\n", b.error().message.c_str());
			return 1;
		}
		builds.push_back(std::move(*b));
	}
	std::vector<Epoch> epochs;
	for (const Build &b : builds) {
		Epoch *home = nullptr;
		for (Epoch &e : epochs)
			if (same_epoch(*e.builds.front(), b))
				home = &e;
		if (!home)
			home = &epochs.emplace_back();
		home->builds.push_back(&b);
	}
	printf("/* Generated by tools/gen-layouts from the DWARF of %zu builds. */\n\n",
	       builds.size());
	for (const Epoch &e : epochs)
		print_epoch(e, new_only);
	double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
	fprintf(stderr, "gen-layouts: %zu builds, %zu epochs, %.2f s\n", builds.size(),
		epochs.size(), s);
	return 0;
}
