// How libdwfl finds the files behind a target's modules: the ELF file each
// was mapped from (honouring --exe and --sysroot, checked by build-id) and
// its separate debug info, without the debuginfod servers unless asked.
#pragma once

#include <elfutils/libdwfl.h>

#include "readers/mapped_files.h"

namespace ljcore {

// A core's modules: their files as its MappedFiles say, once
// give_core_files() gave it to them.
extern const Dwfl_Callbacks core_dwfl_callbacks;
// A live process's modules: their files under /proc/PID.
extern const Dwfl_Callbacks live_dwfl_callbacks;

// Hands files to every module reported to dwfl, through the module's
// userdata: libdwfl's callbacks have no other way to the session.
void give_core_files(Dwfl *dwfl, const MappedFiles &files);

// While dwfl_core_file_report() runs, its modules have no userdata yet,
// and libdwfl may already look for a module's file (elfutils' link_map.c
// does when the core lacks a library's headers): for as long as one of
// these lives, on this thread, such a look-up uses files.
class ReportingCoreFiles {
public:
	explicit ReportingCoreFiles(const MappedFiles &files);
	~ReportingCoreFiles();
	ReportingCoreFiles(const ReportingCoreFiles &) = delete;
	ReportingCoreFiles &operator=(const ReportingCoreFiles &) = delete;

private:
	const MappedFiles *outer_;
};

} // namespace ljcore
