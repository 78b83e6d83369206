#include "readers/dwfl_report.h"

#include <optional>

#include "readers/core_modules.h"
#include "readers/dwfl_files.h"

namespace ljcore {

namespace {

// The core alone (FileLookup::core_only): modules named and placed as the
// core records them, with the build-ids it holds, and no file behind them.
// dwfl_core_file_report would open every path the core names, NT_FILE's
// and the link_map chain's, and use the files it finds there.
void report_core_modules(Dwfl *dwfl, const ElfCore &core)
{
	auto read = [&core](uint64_t addr, std::span<std::byte> out) {
		return core.read_core_only(addr, out);
	};
	for (const CoreModule &m : core_modules(core.files().mappings(), read)) {
		Dwfl_Module *mod = dwfl_report_module(dwfl, m.path.c_str(), m.start, m.end);
		if (mod && !m.build_id.empty())
			dwfl_module_report_build_id(mod, m.build_id.data(), m.build_id.size(),
						    m.build_id_addr);
	}
}

Expected<void> report_core(Dwfl *dwfl, const ElfCore &core)
{
	if (core.files().core_only() || core.head_only()) {
		// A core's head (`ljcore catch`): libdwfl would read the link_map
		// chain from segments the head does not hold.
		report_core_modules(dwfl, core);
	} else if (!core.modules_without_nt_file().empty()) {
		// No NT_FILE: libdwfl cannot find the modules itself.
		for (const LoadedModule &m : core.modules_without_nt_file()) {
			std::string file = core.files().disk_path(m.path);
			dwfl_report_elf(dwfl, m.path.c_str(), file.c_str(), -1, m.bias, false);
		}
	} else {
		const std::string &exe = core.files().exe_path();
		std::string exe_disk = exe.empty() ? "" : core.files().disk_path(exe);
		if (dwfl_core_file_report(dwfl, core.elf(),
					  exe_disk.empty() ? nullptr : exe_disk.c_str()) < 0)
			return fail(std::string("reporting modules: ") + dwfl_errmsg(-1));
	}
	return {};
}

} // namespace

Expected<void> report_modules(Dwfl *dwfl, const Target &target, const ElfCore *core)
{
	std::optional<ReportingCoreFiles> reporting;
	if (core)
		reporting.emplace(core->files());
	dwfl_report_begin(dwfl);
	if (!core) {
		if (dwfl_linux_proc_report(dwfl, target.process().pid) != 0)
			return fail(std::string("reporting modules: ") + dwfl_errmsg(-1));
	} else if (auto r = report_core(dwfl, *core); !r) {
		return r;
	}
	if (dwfl_report_end(dwfl, nullptr, nullptr) != 0)
		return fail(std::string("reporting modules: ") + dwfl_errmsg(-1));
	if (core)
		give_core_files(dwfl, core->files());
	return {};
}

} // namespace ljcore
