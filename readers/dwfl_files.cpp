#include "readers/dwfl_files.h"

#include <cstdlib>
#include <cstring>
#include <string>

#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <unistd.h>


namespace ljcore {

namespace {

// The core being reported on this thread, if one is (ReportingCoreFiles).
thread_local const MappedFiles *reporting_files = nullptr;

// The files give_core_files() handed to a module, or, while its core is
// still being reported, that core's.
const MappedFiles *files_of(void **userdata)
{
	auto *files = static_cast<const MappedFiles *>(*userdata);
	return files ? files : reporting_files;
}

// Whether servers were given to ask for missing files (ljcore keeps
// DEBUGINFOD_URLS only with --debuginfod).
bool debuginfod_wanted()
{
	const char *urls = getenv("DEBUGINFOD_URLS");
	return urls && *urls;
}

bool same_build_id(Dwfl_Module *mod, Elf *elf)
{
	const unsigned char *want;
	GElf_Addr vaddr;
	int n = dwfl_module_build_id(mod, &want, &vaddr);
	if (n <= 0)
		return true; // the core did not record one: cannot check
	const void *have;
	ssize_t m = dwelf_elf_gnu_build_id(elf, &have);
	return m == n && memcmp(want, have, size_t(n)) == 0;
}

// Open the file a module was mapped from, honouring --exe and --sysroot,
// and accept it only when its build-id matches.
int find_elf(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
	     char **file_name, Elf **elfp)
{
	const MappedFiles *files = files_of(userdata);
	if (files && files->core_only())
		return -1;
	if (files && modname && modname[0] == '/') {
		std::string path = files->disk_path(modname);
		int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, nullptr);
			if (elf && same_build_id(mod, elf)) {
				*file_name = strdup(path.c_str());
				*elfp = elf;
				return fd;
			}
			if (elf)
				elf_end(elf);
			close(fd);
		}
	}
	// libdw's own search ends with the debuginfod servers.
	if (!debuginfod_wanted())
		return -1;
	return dwfl_build_id_find_elf(mod, userdata, modname, base, file_name, elfp);
}

// Separate debug info for a module without its own. libdw's standard
// search ends with the debuginfod servers, and merely loading their client
// (libdebuginfod, which it does even with DEBUGINFOD_URLS unset) maps
// libcurl, TLS and Kerberos into ljcore and doubles the time of a whole
// analysis. Without servers to ask, the search stays local: the build-id
// tree Debian's -dbgsym packages install.
int find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
		   const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
		   char **debuginfo_file_name)
{
	if (const MappedFiles *files = files_of(userdata); files && files->core_only())
		return -1;
	if (debuginfod_wanted())
		return dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name,
						    debuglink_file, debuglink_crc,
						    debuginfo_file_name);
	const unsigned char *id;
	GElf_Addr vaddr;
	int n = dwfl_module_build_id(mod, &id, &vaddr);
	if (n < 2)
		return -1;
	std::string hex = hex_string(id, size_t(n));
	std::string path =
		"/usr/lib/debug/.build-id/" + hex.substr(0, 2) + "/" + hex.substr(2) + ".debug";
	int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
	if (fd >= 0)
		*debuginfo_file_name = strdup(path.c_str());
	return fd;
}

char *debuginfo_path = nullptr;

} // namespace

const Dwfl_Callbacks core_dwfl_callbacks = {
	.find_elf = find_elf,
	.find_debuginfo = find_debuginfo,
	.section_address = nullptr,
	.debuginfo_path = &debuginfo_path,
};

const Dwfl_Callbacks live_dwfl_callbacks = {
	.find_elf = dwfl_linux_proc_find_elf,
	.find_debuginfo = find_debuginfo,
	.section_address = nullptr,
	.debuginfo_path = &debuginfo_path,
};

ReportingCoreFiles::ReportingCoreFiles(const MappedFiles &files) : outer_(reporting_files)
{
	reporting_files = &files;
}

ReportingCoreFiles::~ReportingCoreFiles()
{
	reporting_files = outer_;
}

void give_core_files(Dwfl *dwfl, const MappedFiles &files)
{
	dwfl_getmodules(
		dwfl,
		[](Dwfl_Module *, void **userdata, const char *, Dwarf_Addr, void *arg) -> int {
			*userdata = arg;
			return DWARF_CB_OK;
		},
		const_cast<MappedFiles *>(&files), 0);
}

} // namespace ljcore
