// Every LuaJIT debug build under the given directory: the layout its DWARF
// describes must equal one of the built-in tables, which serve stripped
// binaries of the same flavour. On a mismatch the DWARF values are printed
// as an initializer to compare with luajit/layouts.h.
#include <cstdio>
#include <filesystem>

#include <elfutils/libdw.h>
#include <fcntl.h>
#include <unistd.h>

#include "analyzer/builtin_layouts.h"
#include "analyzer/dwarf_layout.h"

using namespace ljcore;
namespace fs = std::filesystem;

static void print_initializer(const lj_layout &l)
{
	printf("\t.gc64 = %u, .fr2 = %u, .ptrsize = %u,\n", l.gc64, l.fr2, l.ptrsize);
	printf("\t.L_status = %u, .L_glref = %u, .L_base = %u, .L_top = %u, .L_maxstack = %u, "
	       ".L_stack = %u, .L_cframe = %u, .L_stacksize = %u,\n",
	       l.L_status, l.L_glref, l.L_base, l.L_top, l.L_maxstack, l.L_stack, l.L_cframe,
	       l.L_stacksize);
	printf("\t.g_strempty = %u, .g_vmstate = %u, .g_mainthref = %u, .g_cur_L = %u, "
	       ".g_jit_base = %u, .g_gc_total = %u,\n",
	       l.g_strempty, l.g_vmstate, l.g_mainthref, l.g_cur_L, l.g_jit_base, l.g_gc_total);
	printf("\t.fn_ffid = %u, .fn_nupvalues = %u, .fn_pc = %u, .fn_f = %u,\n", l.fn_ffid,
	       l.fn_nupvalues, l.fn_pc, l.fn_f);
	printf("\t.pt_size = %u, .pt_numparams = %u, .pt_framesize = %u, .pt_sizebc = %u, "
	       ".pt_k = %u, .pt_sizekgc = %u, .pt_sizeuv = %u, .pt_flags = %u, .pt_chunkname = %u, "
	       ".pt_firstline = %u, .pt_numline = %u, .pt_lineinfo = %u, .pt_uvinfo = %u, "
	       ".pt_varinfo = %u,\n",
	       l.pt_size, l.pt_numparams, l.pt_framesize, l.pt_sizebc, l.pt_k, l.pt_sizekgc,
	       l.pt_sizeuv, l.pt_flags, l.pt_chunkname, l.pt_firstline, l.pt_numline, l.pt_lineinfo,
	       l.pt_uvinfo, l.pt_varinfo);
	printf("\t.str_len = %u, .str_size = %u, .gg_g = 0x%x, .gg_dispatch = 0x%x,\n", l.str_len,
	       l.str_size, l.gg_g, l.gg_dispatch);
	printf("\t.cf_nres = %u, .cf_prev = %u, .cf_l = %u, .cf_pc = %u,\n", l.cf_nres, l.cf_prev,
	       l.cf_l, l.cf_pc);
	// The GC heap census (analyzer/gc_census.cpp).
	printf("\t.L_openupval = %u, .L_env = %u, .L_size = %u, .g_registrytv = %u,\n",
	       l.L_openupval, l.L_env, l.L_size, l.g_registrytv);
	printf("\t.g_gc_root = %u, .g_gc_mmudata = %u, .g_gc_lightudnum = %u, "
	       ".g_gc_lightudseg = %u, .g_str_tab = %u, .g_str_mask = %u, .g_str_num = %u, "
	       ".g_tmpbuf = %u, .g_ctype_state = %u,\n",
	       l.g_gc_root, l.g_gc_mmudata, l.g_gc_lightudnum, l.g_gc_lightudseg, l.g_str_tab,
	       l.g_str_mask, l.g_str_num, l.g_tmpbuf, l.g_ctype_state);
	printf("\t.fn_uvptr = %u, .fnc_size = %u, .fnl_size = %u, .pt_sizept = %u,\n", l.fn_uvptr,
	       l.fnc_size, l.fnl_size, l.pt_sizept);
	printf("\t.tab_colo = %u, .tab_array = %u, .tab_metatable = %u, .tab_node = %u, "
	       ".tab_asize = %u, .tab_hmask = %u, .tab_size = %u, .node_size = %u,\n",
	       l.tab_colo, l.tab_array, l.tab_metatable, l.tab_node, l.tab_asize, l.tab_hmask,
	       l.tab_size, l.node_size);
	printf("\t.ud_len = %u, .ud_size = %u, .cd_ctypeid = %u, .cd_size = %u, .uv_size = %u, "
	       ".uv_v = %u,\n",
	       l.ud_len, l.ud_size, l.cd_ctypeid, l.cd_size, l.uv_size, l.uv_v);
	printf("\t.cts_tab = %u, .cts_sizetab = %u, .cts_cb_sizeid = %u, .cts_size = %u, "
	       ".ctype_size = %u,\n",
	       l.cts_tab, l.cts_sizetab, l.cts_cb_sizeid, l.cts_size, l.ctype_size);
	printf("\t.gg_size = 0x%x,\n", l.gg_size);
}

// The JIT layout of the same build: its DWARF must equal the built-in table
// of the flavour, and a build without the JIT must have neither.
static bool check_trace_layout(Dwarf *dw, const std::string &variant, const lj_layout &match)
{
	auto dwarf = trace_layout_from_dwarf(dw);
	const lj_trace_layout *builtin = builtin_trace_layout(match);
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

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s BUILD_LUAJIT_DIR\n", argv[0]);
		return 2;
	}
	int checked = 0, failed = 0;
	std::error_code ec;
	for (auto &entry : fs::directory_iterator(argv[1], ec)) {
		std::string variant = entry.path().filename();
		fs::path exe = entry.path() / "src" / "luajit";
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
			} else {
				printf("FAIL %s: no built-in table equals its DWARF layout:\n",
				       variant.c_str());
				print_initializer(*ly);
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
