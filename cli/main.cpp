// ljcore: what was this LuaJIT process doing when it died?
#include <cstdlib>
#include <iostream>

#include <unistd.h>

#include <CLI/CLI.hpp>

#include "analyzer/analyze.h"
#include "analyzer/snapshot.h"
#include "cli/exit_codes.h"
#include "cli/fixture.h"
#include "cli/gc_diff.h"
#include "cli/locals_options.h"
#include "cli/profile_command.h"
#include "cli/render.h"
#include "cli/render_bytes.h"
#include "cli/render_print.h"
#include "cli/render_trace.h"

using namespace ljcore;

namespace {

struct Common {
	std::string core;
	int32_t pid = 0;
	std::string exe;
	std::string sysroot;
	bool debuginfod = false;
	std::string scan = "auto";
};

const char *const core_help = "ELF core file (kernel or gdb gcore, plain or compressed "
			      "with zstd, xz or lz4), - for standard input";

// A command's core is a positional argument, and --pid its alternative; a
// command with positionals of its own (print) takes the core itself.
void add_common(CLI::App *cmd, Common &c, bool core_positional = true)
{
	auto *pid = cmd->add_option("--pid", c.pid,
				    "a running process instead: stopped only while "
				    "it is read, never written to")
			    ->check(CLI::PositiveNumber);
	if (core_positional) {
		auto *core = cmd->add_option("core", c.core, core_help)
				     ->check(CLI::ExistingFile | CLI::IsMember({"-"}));
		core->excludes(pid);
		pid->excludes(core);
	}
	cmd->add_option("--exe", c.exe,
			"the executable, when the path recorded in the core does "
			"not hold it on this machine");
	cmd->add_option("--sysroot", c.sysroot,
			"look up every file of the core under this directory")
		->check(CLI::ExistingDirectory);
	cmd->add_flag("--debuginfod", c.debuginfod,
		      "let libdw ask the debuginfod servers in DEBUGINFOD_URLS");
	cmd->add_option("--scan", c.scan,
			"scan writable memory for VMs: auto (when nothing else "
			"finds one), always (also finds idle VMs), never")
		->check(CLI::IsMember({"auto", "always", "never"}));
}

// The exit status tells a script how much it can trust the output.
int status_of(const Analysis &a)
{
	if (a.vms.empty())
		return exit_no_vm;
	return a.diagnostics.has_problems() ? exit_partial : exit_ok;
}

void print_problems(const Analysis &a)
{
	for (auto &p : a.diagnostics.problems())
		std::cerr << "ljcore: " << printable(p) << "\n";
}

int run_snapshot(const Common &common, const std::string &out, const AnalyzeOptions &options)
{
	auto r = common.pid ? snapshot_pid(common.pid, out, options)
			    : snapshot_core(common.core, out, options);
	if (!r) {
		std::cerr << "ljcore: " << printable(r.error().message) << "\n";
		return exit_unreadable;
	}
	std::string source =
		common.pid ? "process " + std::to_string(common.pid) + "'s mappings" : common.core;
	std::cout << out << ": " << r->pages << " pages, " << r->bytes << " bytes ("
		  << (r->source_bytes ? 100.0 * double(r->bytes) / double(r->source_bytes) : 0)
		  << "% of " << source << ")";
	if (common.pid)
		std::cout << ", process paused " << r->paused_us << " us";
	std::cout << "\n";
	return exit_ok;
}

// The subcommand argv names: its first argument that is not an option
// (ljcore's own options take no value), "" if none.
std::string_view subcommand_named(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (argv[i][0] != '-')
			return argv[i];
	return "";
}

int run(int argc, char **argv)
{
	CLI::App app{"ljcore: Lua backtraces and VM state from cores of LuaJIT processes"};
	app.require_subcommand(1);
	app.set_version_flag("--version", "ljcore " LJCORE_VERSION);
	app.footer(exit_codes_help);

	// Every subcommand is named, for the list --help prints, but only the
	// one run gets its options: CLI11 builds each option's checks and help
	// text as it is added, which for all of them took a tenth of a
	// backtrace's run time.
	const std::string_view invoked = subcommand_named(argc, argv);
	auto subcommand = [&](const char *name, const char *help) {
		return std::pair{app.add_subcommand(name, help), invoked == name};
	};

	Common common;
	bool all = false;
	auto [analyze, analyze_wanted] =
		subcommand("analyze", "summary, native and Lua frames of every thread");
	bool analyze_json = false;
	bool explain = false;
	LocalsFlags locals;
	if (analyze_wanted) {
		add_common(analyze, common);
		analyze->add_flag("--json", analyze_json, "print the result model as JSON");
		analyze->add_flag("--explain", explain,
				  "also print how the VMs were looked for and what was rejected");
		// Finding every coroutine walks the whole GC object list: on a
		// big heap that reads most of it, so it is asked for, not done
		// by default.
		analyze->add_flag("--all", all,
				  "also every coroutine of every VM (walks the GC heap)");
		add_locals_options(analyze, locals);
	}

	auto [bt, bt_wanted] = subcommand("bt", "Lua backtrace of each VM's running coroutine");
	std::string format = "text";
	int level = 0;
	if (bt_wanted) {
		add_common(bt, common);
		bt->add_option("--format", format,
			       "text, luajit (as debug.traceback prints it) or json")
			->check(CLI::IsMember({"text", "luajit", "json"}));
		bt->add_flag(
			"--json", [&](int64_t) { format = "json"; }, "same as --format=json");
		bt->add_flag("--all", all, "every coroutine of every VM, with its state");
		bt->add_option("--level", level,
			       "first Lua level to show (as debug.traceback's level)")
			->check(CLI::NonNegativeNumber);
		add_locals_options(bt, locals);
	}

	auto [traces, traces_wanted] =
		subcommand("traces", "table of the JIT's traces of every VM");
	bool traces_json = false;
	bool mcode = false;
	if (traces_wanted) {
		add_common(traces, common);
		traces->add_flag("--json", traces_json,
				 "every trace, IR and snapshots included, as JSON");
		traces->add_flag("--mcode", mcode,
				 "with --json: each trace's disassembled machine code too");
	}
	auto [trace, trace_wanted] = subcommand(
		"trace", "one trace's IR and snapshots, as jit.dump with +rs prints them");
	uint32_t trace_number = 0;
	if (trace_wanted) {
		trace->add_option("number", trace_number, "the trace number")->required();
		add_common(trace, common);
		trace->add_flag("--mcode", mcode,
				"also the machine code, disassembled, with entry, loop, exits "
				"and snapshots");
	}

	auto [gc, gc_wanted] = subcommand("gc", "GC heap of each VM: census by type, strings, "
						"largest objects");
	bool gc_json = false;
	GcCensusOptions gc_options;
	std::string gc_before;
	if (gc_wanted) {
		add_common(gc, common);
		gc->add_flag("--json", gc_json, "print the census as JSON");
		gc->add_option("--top", gc_options.top, "how many of the largest objects to list")
			->check(CLI::NonNegativeNumber);
		gc->add_flag("--paths", gc_options.paths,
			     "a shortest path from a root to each of the largest objects");
		gc->add_option("--diff", gc_before,
			       "a core of the same program from before: print what grew from "
			       "it to CORE")
			->check(CLI::ExistingFile);
	}

	auto [print, print_wanted] = subcommand(
		"print", "one Lua value by its path: _G.app.cache, package.loaded[\"x\"], "
			 "registry[2], frame 3 local tag, upvalue 1 of frame 2, 0x7f...");
	// CORE EXPR, or EXPR alone with --pid.
	std::vector<std::string> print_args;
	bool print_json = false;
	ValueLimits print_limits;
	if (print_wanted) {
		add_common(print, common, false);
		print->add_option("core-and-expression", print_args,
				  std::string("CORE (") + core_help +
					  ") and the value's path (the README "
					  "lists the forms); the path alone with --pid")
			->required()
			->expected(1, 2);
		print->add_flag("--json", print_json, "print the value as JSON");
		print->add_option("--max-string", print_limits.max_string,
				  "bytes of a string shown (default 200)");
		print->add_option("--depth", print_limits.depth,
				  "levels of table entries shown (default 1)");
		print->add_option("--max-items", print_limits.max_items,
				  "entries shown per table (default 10)");
	}

	auto [profile, profile_wanted] = subcommand(
		"profile", "sample a running process's Lua stacks: folded stacks for flame graphs");
	ProfileCommand prof;
	std::string backend = "auto";
	std::string alloc;
	CLI::Option *alloc_opt = nullptr;
	if (profile_wanted) {
		profile->add_option("--pid", prof.options.pid, "the process to profile")
			->required()
			->check(CLI::PositiveNumber);
		profile->add_option("--rate", prof.options.rate_hz,
				    "samples per second per CPU (99)")
			->check(CLI::Range(1, 10000));
		profile->add_option("--duration", prof.options.duration_s,
				    "seconds to sample (10); Ctrl-C ends it early")
			->check(CLI::PositiveNumber);
		profile->add_option("-o,--output", prof.output,
				    "write the profile here, not to stdout");
		profile->add_option("--format", prof.format,
				    "folded (flamegraph.pl, inferno), svg (a flame graph), "
				    "speedscope, pprof (gzipped profile.proto), or top (a table)")
			->check(CLI::IsMember({"folded", "svg", "speedscope", "pprof", "top"}));
		profile->add_flag("--children", prof.options.children,
				  "also sample the process's children (automatic for an nginx "
				  "master: its workers)");
		profile->add_option("--backend", backend,
				    "bpf, userspace (process_vm_readv; for machines that refuse "
				    "bpf()), or auto (bpf where allowed: the default)")
			->check(CLI::IsMember({"auto", "bpf", "userspace"}));
		profile->add_flag("--native", prof.options.native,
				  "the native frames around the Lua frames, as analyze places "
				  "them (unwound from a copy of the stack)");
		alloc_opt = profile->add_option("--alloc", alloc,
						"allocations, not CPU time: outstanding (bytes "
						"not freed by the end, after a full GC cycle: the "
						"leak view; the default) or all (every byte "
						"allocated: the churn view)")
				    ->expected(0, 1)
				    ->check(CLI::IsMember({"", "outstanding", "all"}));
		profile->add_option("--sample-bytes", prof.options.sample_bytes,
				    "--alloc: sample an allocation every this many bytes on "
				    "average (512K)")
			->transform(CLI::AsSizeValue(false))
			->check(CLI::PositiveNumber);
		profile->add_flag("--blocking", prof.options.blocking,
				  "userspace backend: stop the VM's thread for each sample, so "
				  "its frames are exact (the default never stops it)");
	}

	auto [snapshot, snapshot_wanted] = subcommand(
		"snapshot", "write a minimized core: only the memory the analysis reads");
	std::string snapshot_out;
	if (snapshot_wanted) {
		add_common(snapshot, common);
		snapshot->add_option("-o,--output", snapshot_out, "the core file to write")
			->required();
		snapshot->add_flag("--all", all,
				   "keep every coroutine too: walks the GC heap, so the snapshot "
				   "keeps a page of every heap object (and --pid stops the "
				   "process longer)");
	}

	auto [fixture, fixture_wanted] =
		subcommand("fixture", "regression fixtures: minimized core + expected analysis");
	fixture->require_subcommand(1);
	FixtureNew fnew;
	std::vector<std::string> fixture_roots;
	auto *fixture_new_cmd = fixture->add_subcommand("new", "make a fixture from a core");
	auto *fixture_check_cmd =
		fixture->add_subcommand("check", "re-analyze fixtures, show changes");
	auto *fixture_update_cmd =
		fixture->add_subcommand("update", "accept the new analysis, on purpose");
	if (fixture_wanted) {
		fixture_new_cmd->add_option("core", fnew.core, "the core")
			->required()
			->check(CLI::ExistingFile);
		fixture_new_cmd->add_option("-o,--output", fnew.dir, "the fixture directory")
			->required();
		fixture_new_cmd->add_option("--exe", fnew.options.lookup.exe,
					    "the executable, if moved");
		fixture_new_cmd->add_option("--sysroot", fnew.options.lookup.sysroot,
					    "where the core's library paths are rooted");
		fixture_new_cmd->add_option("--scenario", fnew.scenario, "manifest: what crashed");
		fixture_new_cmd->add_option("--flavour", fnew.flavour, "manifest: LuaJIT build");
		fixture_new_cmd->add_option("--made-by", fnew.made_by,
					    "manifest: how the core was made");
		fixture_check_cmd
			->add_option("paths", fixture_roots, "fixture directories or trees")
			->required();
		fixture_update_cmd
			->add_option("paths", fixture_roots, "fixture directories or trees")
			->required();
	}

	try {
		app.parse(argc, argv);
	} catch (const CLI::ParseError &e) {
		int code = app.exit(e);
		return code == 0 ? exit_ok : exit_usage;
	}

	if (profile->parsed()) {
		using Backend = ProfileOptions::Backend;
		prof.options.backend = backend == "bpf"         ? Backend::bpf
				       : backend == "userspace" ? Backend::userspace
								: Backend::automatic;
		using Alloc = ProfileOptions::Alloc;
		if (alloc_opt && alloc_opt->count())
			prof.options.alloc = alloc == "all" ? Alloc::all : Alloc::outstanding;
		return profile_command(prof);
	}
	if (fixture->parsed()) {
		unsetenv("DEBUGINFOD_URLS");
		if (fixture_new_cmd->parsed())
			return fixture_new(fnew);
		if (fixture_check_cmd->parsed())
			return fixture_check(fixture_roots);
		return fixture_update(fixture_roots);
	}

	// Offline by default: a crash analysis should not wait on the network.
	if (!common.debuginfod)
		unsetenv("DEBUGINFOD_URLS");

	AnalyzeOptions options;
	options.lookup = {common.exe, common.sysroot};
	options.all_coroutines = all;
	options.locals = locals_options(locals);
	options.traces = traces->parsed() || trace->parsed();
	// The table names each side trace's parent exit, found in the code.
	options.mcode = traces->parsed() || mcode;
	options.scan = common.scan == "always"  ? ScanMode::always
		       : common.scan == "never" ? ScanMode::never
						: ScanMode::automatic;
	if (print->parsed()) {
		if (print_args.size() != (common.pid ? 1u : 2u)) {
			std::cerr << "ljcore: print takes CORE EXPR, or --pid PID EXPR\n";
			return exit_usage;
		}
		if (!common.pid) {
			common.core = print_args[0];
			if (common.core != "-" && access(common.core.c_str(), R_OK) != 0) {
				std::cerr << "ljcore: " << printable(common.core)
					  << ": cannot read it\n";
				return exit_usage;
			}
		}
		auto path = parse_lua_path(print_args.back());
		if (!path) {
			std::cerr << "ljcore: " << printable(path.error().message) << "\n";
			return exit_usage;
		}
		options.print = PrintRequest{print_args.back(), *path, print_limits};
		// Locals and upvalues come from the frames' variables.
		if (path->root == LuaPath::Root::local || path->root == LuaPath::Root::upvalue)
			options.locals = LocalsOptions{true, print_limits};
	}
	if (common.core.empty() && common.pid == 0) {
		std::cerr << "ljcore: give a core file or --pid PID\n";
		return exit_usage;
	}
	if (snapshot->parsed())
		return run_snapshot(common, snapshot_out, options);
	if (gc->parsed()) {
		options.gc = gc_options;
		if (!gc_before.empty()) {
			// Growth by path prefix needs the paths.
			options.gc->paths = true;
			return gc_diff_command(gc_before, common.core, options, gc_json);
		}
	}
	auto result =
		common.pid ? analyze_pid(common.pid, options) : analyze_core(common.core, options);
	if (!result) {
		std::cerr << "ljcore: " << printable(result.error().message) << "\n";
		return exit_unreadable;
	}
	RenderOptions render;
	render.level = level;
	render.explain = explain;
	render.all = all;
	if (traces->parsed() || trace->parsed()) {
		int status = status_of(*result);
		if (trace->parsed())
			status = render_one_trace(std::cout, *result, trace_number, mcode, status);
		else if (traces_json)
			render_traces_json(std::cout, *result, mcode);
		else
			render_trace_table(std::cout, *result);
		print_problems(*result);
		return status;
	}
	if (print->parsed()) {
		if (print_json)
			render_printed_json(std::cout, *result);
		else
			render_printed(std::cout, std::cerr, *result);
		print_problems(*result);
		if (result->vms.empty())
			return exit_no_vm;
		return printed_everywhere(*result) && !result->diagnostics.has_problems() ? exit_ok
									       : exit_partial;
	}
	if (gc->parsed()) {
		if (gc_json)
			render_gc_json(std::cout, *result);
		else
			render_gc(std::cout, *result);
		print_problems(*result);
	} else if (analyze->parsed()) {
		if (analyze_json) {
			render_json(std::cout, *result);
		} else {
			render_text(std::cout, *result, render);
		}
	} else if (format == "json") {
		render_json(std::cout, *result);
	} else {
		if (format == "luajit")
			render_luajit(std::cout, *result, render);
		else
			render_lua_text(std::cout, *result, render);
		print_problems(*result);
	}
	return status_of(*result);
}

} // namespace

// Whatever a hostile input or a bug throws ends as a message and a status
// from the documented set, never in std::terminate.
int main(int argc, char **argv)
{
	std::string what = "an unknown exception";
	try {
		return run(argc, argv);
	} catch (const std::bad_alloc &) {
		// Nothing to allocate a message with: a constant one.
		std::cerr << "ljcore: out of memory\n";
		return exit_internal;
	} catch (const std::exception &e) {
		what = e.what();
	} catch (...) {
	}
	std::cout.flush();
	std::cerr << "ljcore: internal error: " << printable(what) << "\n";
	return exit_internal;
}
