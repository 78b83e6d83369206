#include "analyzer/profile/profiled_process.h"

#include <algorithm>
#include <filesystem>

#include "analyzer/locate/locate.h"
#include "analyzer/profile/request_tags.h"
#include "readers/small_file.h"

namespace ljcore {

namespace {

// nginx names its master "nginx: master process ..." and its workers
// "nginx: worker process" (ngx_setproctitle).
bool is_nginx(int32_t pid, const char *role)
{
	return read_small_file("/proc/" + std::to_string(pid) + "/cmdline")
		.value_or("")
		.starts_with(std::string("nginx: ") + role + " process");
}

// The processes whose parent is pid, from each /proc/N/stat's ppid (the
// field after the state, after the parenthesized command name).
std::vector<int32_t> children_of(int32_t pid)
{
	std::vector<int32_t> kids;
	// The forms that take an error_code: the others throw, and /proc
	// changes under the listing as processes come and go.
	std::error_code ec;
	for (std::filesystem::directory_iterator it("/proc", ec), end; !ec && it != end;
	     it.increment(ec)) {
		const std::string name = it->path().filename();
		if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos)
			continue;
		// A process gone since the directory was listed reads as empty.
		std::string stat = read_small_file("/proc/" + name + "/stat").value_or("");
		size_t paren = stat.rfind(')');
		if (paren == std::string::npos || paren + 4 >= stat.size())
			continue;
		if (atoi(stat.c_str() + paren + 4) == pid)
			kids.push_back(int32_t(std::stoi(name)));
	}
	std::sort(kids.begin(), kids.end());
	return kids;
}

// Stops pid only while its VM is found, adding the time to paused_us.
// Sets no_vm when the process has none.
Expected<std::unique_ptr<ProfiledProcess>> attach_vm(int32_t pid, uint64_t &paused_us, bool &no_vm)
{
	auto live = open_live(pid);
	if (!live)
		return std::unexpected(live.error());
	auto proc = std::make_unique<ProfiledProcess>();
	proc->pid = pid;
	proc->live = std::move(*live);
	const Target &target = *proc->live.process;
	const NativeSession &native = *proc->live.native;
	Diagnostics diag = target.diagnostics();
	std::vector<NativeStack> stacks;
	for (const ThreadInfo &t : target.threads())
		stacks.push_back(native.unwind(t.tid));
	LocatedVms located = locate_vms(target, native, stacks, ScanMode::automatic, diag);
	std::optional<VmResult> vm;
	if (!located.vms.empty())
		vm = describe_vm(target, located.vms.front(), located.layouts, diag);
	paused_us += uint64_t(proc->live.process->resume().count());
	if (!vm) {
		no_vm = true;
		auto problems = diag.problems();
		return fail("no LuaJIT VM found in process " + std::to_string(pid) +
			    (problems.empty() ? "" : ": " + problems.front()));
	}
	proc->config.layout = vm->layout_offsets;
	if (const NginxLayout *ngx = nginx_layout_of(native.modules(), diag))
		proc->nginx = nginx_offsets(*ngx, vm->layout_offsets);
	proc->config.g = vm->global_state;
	proc->config.tid = uint32_t(vm->tid);
	proc->layout = vm->layout_offsets;
	if (vm->trace_layout_offsets) {
		proc->trace_layout = *vm->trace_layout_offsets;
		proc->layout.jit = &proc->trace_layout;
	}
	proc->mem = std::make_unique<Vm>(*proc->live.process, proc->layout, vm->global_state);
	return proc;
}

} // namespace

std::expected<ProfiledProcesses, ProfileError> attach_profiled(int32_t pid, bool children,
							       Profile &p)
{
	std::vector<int32_t> pids{pid};
	if (children || is_nginx(pid, "master"))
		for (int32_t kid : children_of(pid))
			pids.push_back(kid);
	ProfiledProcesses procs;
	bool only_no_vm = true;
	std::string first_error;
	for (int32_t one : pids) {
		bool no_vm = false;
		auto proc = attach_vm(one, p.paused_us, no_vm);
		if (!proc) {
			only_no_vm = only_no_vm && no_vm;
			if (first_error.empty())
				first_error = proc.error().message;
			if (pids.size() > 1)
				p.diagnostics.note(proc.error().message);
			continue;
		}
		if (!(*proc)->nginx && is_nginx(one, "worker"))
			p.diagnostics.note("nginx worker " + std::to_string(one) +
					   ": its requests cannot be read (an nginx build without "
					   "built-in offsets, or a LuaJIT without L->exdata): its "
					   "samples are in no request");
		procs.push_back(std::move(*proc));
	}
	if (procs.empty())
		return std::unexpected(ProfileError{only_no_vm ? ProfileFailure::no_vm
							       : ProfileFailure::unreadable,
						    first_error});
	return procs;
}

} // namespace ljcore
