// The analysis of one located VM: its stacks, coroutines, traces, heap,
// requests, locals and values, as the options ask, placed among the native
// frames of the threads that run it.
#pragma once

#include <vector>

#include "analyzer/analyze.h"
#include "analyzer/locate/locate.h"
#include "analyzer/nginx/nginx_layouts.h"
#include "analyzer/stack/lua_stack.h"

namespace ljcore {

// What the analysis of one VM shares with that of the whole target.
struct TargetAnalysis {
	const Target &target;
	const NativeSession &native;
	const AnalyzeOptions &options;
	const CodeSymbolizer &symbolize;
	const NginxLayout *nginx; // the worker's nginx, if the process is one
	// One per thread of target: the native stack, and what it becomes in
	// the result (a crash in a trace extends both; each VM adds its runs).
	std::vector<NativeStack> &stacks;
	std::vector<ThreadResult> &threads;
	Diagnostics &diag;
};

// A thread's native stack as the result shows it.
ThreadResult thread_result(const ThreadInfo &t, const NativeStack &s, bool crashed);

// Completes v, which describe_vm() made of c, as the index-th VM of the
// analysis.
void analyze_vm(TargetAnalysis &ta, const VmCandidate &c, size_t index, VmResult &v);

} // namespace ljcore
