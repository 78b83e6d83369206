// What the commands that analyze a core or a process share: the options
// the input implies, the analysis, the exit status and the problems.
#pragma once

#include <functional>

#include "analyzer/analyze.h"
#include "cli/common_options.h"

namespace ljcore {

// Where to look up the input's files and how to scan for VMs. Also keeps
// libdw off the network unless --debuginfod: a crash analysis should not
// wait on it.
AnalyzeOptions analyze_options(const InputOptions &in);

// What analyze and bt read: each VM's running coroutine, or with --all
// every coroutine, and the locals --locals asks for.
AnalyzeOptions stack_options(const InputOptions &in, bool all_coroutines,
			     const LocalsFlags &locals);

// Whether a core or --pid was given; says so on stderr when neither was.
bool input_given(const InputOptions &in);

// Analyzes the input and returns what render returns for the result:
// exit_usage without an input, exit_unreadable when it cannot be read.
int run_analysis(const InputOptions &in, const AnalyzeOptions &options,
		 const std::function<int(const Analysis &)> &render);

// The exit status tells a script how much it can trust the output.
int status_of(const Analysis &a);

// Each problem on stderr, for commands whose output has no place for them.
void print_problems(const Analysis &a);

} // namespace ljcore
