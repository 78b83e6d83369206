#include "cli/run_analysis.h"

#include <cstdlib>
#include <iostream>

#include "cli/exit_codes.h"
#include "cli/render_bytes.h"

namespace ljcore {

AnalyzeOptions analyze_options(const InputOptions &in)
{
	if (!in.debuginfod)
		unsetenv("DEBUGINFOD_URLS");
	AnalyzeOptions options;
	options.lookup = {in.exe, in.sysroot};
	options.scan = in.scan == "always"  ? ScanMode::always
		       : in.scan == "never" ? ScanMode::never
					    : ScanMode::automatic;
	options.layout = in.layout == "derived"  ? LayoutChoice::derived
			 : in.layout == "tables" ? LayoutChoice::tables
						 : LayoutChoice::automatic;
	return options;
}

AnalyzeOptions stack_options(const InputOptions &in, bool all_coroutines, const LocalsFlags &locals)
{
	AnalyzeOptions options = analyze_options(in);
	options.all_coroutines = all_coroutines;
	options.locals = locals_options(locals);
	return options;
}

bool input_given(const InputOptions &in)
{
	if (!in.core.empty() || in.pid != 0)
		return true;
	std::cerr << "ljcore: give a core file or --pid PID\n";
	return false;
}

int run_analysis(const InputOptions &in, const AnalyzeOptions &options,
		 const std::function<int(const Analysis &)> &render)
{
	if (!input_given(in))
		return exit_usage;
	auto result = in.pid ? analyze_pid(in.pid, options) : analyze_core(in.core, options);
	if (!result) {
		std::cerr << "ljcore: " << printable(result.error().message) << "\n";
		return exit_unreadable;
	}
	return render(*result);
}

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

} // namespace ljcore
