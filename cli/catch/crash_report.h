// The report of one caught crash, made in the sandbox: the analysis of the
// core's head over the dying process's memory, written as report.txt
// (what `analyze --all --locals` prints), report.json, snapshot.core (what
// `snapshot --all` keeps) and crash.txt (the crash in a few lines, for
// catch --list).
#pragma once

#include <cstdint>
#include <ctime>
#include <string>

#include "analyzer/session.h"
#include "cli/catch/settings.h"

namespace ljcore::catching {

struct CrashFacts {
	int32_t host_pid = 0; // %P: as the initial PID namespace sees it
	int32_t ns_pid = 0;   // %p: as the process's own namespace does
	std::string comm;
	std::string exe;
	int signal = 0;
	time_t time = 0;
};

// Exit statuses of the sandboxed writer, for the handler that waits.
constexpr int report_written = 0;
constexpr int report_no_vm = 2;       // no LuaJIT VM: nothing written
constexpr int report_unreadable = 3;  // the core's head could not be read
constexpr int report_not_written = 5; // a write failed (full disk?): see stderr

// Writes the report into out_dir (a directory open for it). head_path is
// the core's head, sysroot where the process's files are (its root).
int write_crash_report(const CrashFacts &facts, const std::string &head_path,
		       const std::string &sysroot, const Memory &memory, int out_dir,
		       const Settings &settings);

// crash.txt's lines, for catch --list: "key: value".
constexpr const char *crash_file = "crash.txt";

} // namespace ljcore::catching
