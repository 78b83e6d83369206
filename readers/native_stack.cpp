#include "readers/native_stack.h"

#include <cstdlib>
#include <cstring>
#include <string>

#include <dwarf.h>
#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <unistd.h>

#include "readers/core_modules.h"

namespace ljcore {

namespace {

// libdwfl's find_elf callback has no user pointer; the session that is
// being reported or unwound sets this. One core is analyzed at a time.
const MappedFiles *active_files = nullptr;

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
	if (active_files && active_files->core_only())
		return -1;
	if (active_files && modname && modname[0] == '/') {
		std::string path = active_files->disk_path(modname);
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
	if (active_files && active_files->core_only())
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

const Dwfl_Callbacks core_callbacks = {
	.find_elf = find_elf,
	.find_debuginfo = find_debuginfo,
	.section_address = nullptr,
	.debuginfo_path = &debuginfo_path,
};

const Dwfl_Callbacks live_callbacks = {
	.find_elf = dwfl_linux_proc_find_elf,
	.find_debuginfo = find_debuginfo,
	.section_address = nullptr,
	.debuginfo_path = &debuginfo_path,
};

struct UnwindState {
	NativeStack *stack;
	const NativeSession *session;
	int nregs;
};

int on_frame(Dwfl_Frame *frame, void *arg)
{
	auto *st = static_cast<UnwindState *>(arg);
	NativeFrame f;
	Dwarf_Addr pc;
	bool activation = false;
	if (!dwfl_frame_pc(frame, &pc, &activation)) {
		st->stack->stop_reason = std::string("no pc: ") + dwfl_errmsg(-1);
		return DWARF_CB_ABORT;
	}
	f.pc = pc;
	f.activation = activation;
	for (int r = 0; r < st->nregs; r++) {
		Dwarf_Word v;
		if (dwfl_frame_reg(frame, unsigned(r), &v) == 0) {
			f.regs.dwarf[size_t(r)] = v;
			f.known_regs |= uint64_t(1) << r;
		}
	}
	if (auto sym = st->session->symbol_at(f.lookup_pc())) {
		f.function = sym->name;
		f.offset = f.pc - sym->addr;
		f.module = sym->module;
	} else if (Dwfl_Module *mod = st->session->module_at(f.lookup_pc())) {
		const char *name = dwfl_module_info(mod, nullptr, nullptr, nullptr, nullptr,
						    nullptr, nullptr, nullptr);
		f.module = name ? name : "";
	}
	st->stack->frames.push_back(std::move(f));
	if (st->stack->frames.size() >= NativeSession::max_frames) {
		st->stack->stop_reason =
			"stopped after " + std::to_string(NativeSession::max_frames) + " frames";
		return DWARF_CB_ABORT;
	}
	return DWARF_CB_OK;
}

} // namespace

// unwind_from() and unwind_sample(): one thread whose initial registers are
// given (DWARF number, value) with its pc, reading the memory given.
struct GivenFrame {
	const Memory *memory = nullptr;
	pid_t tid = 0;
	uint64_t pc = 0;
	std::vector<std::pair<unsigned, uint64_t>> regs;
	bool listed = false;
};

namespace {

pid_t given_next_thread(Dwfl *, void *arg, void **thread_arg)
{
	auto *g = static_cast<GivenFrame *>(arg);
	if (g->listed)
		return 0;
	g->listed = true;
	*thread_arg = arg;
	return g->tid;
}

bool given_memory_read(Dwfl *, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	auto v = static_cast<GivenFrame *>(arg)->memory->read_value<uint64_t>(addr);
	if (v)
		*result = *v;
	return v.has_value();
}

bool given_initial_registers(Dwfl_Thread *thread, void *arg)
{
	auto *g = static_cast<GivenFrame *>(arg);
	for (auto [reg, value] : g->regs) {
		Dwarf_Word v = value;
		if (!dwfl_thread_state_registers(thread, int(reg), 1, &v))
			return false;
	}
	dwfl_thread_state_register_pc(thread, g->pc);
	return true;
}

const Dwfl_Thread_Callbacks given_callbacks = {
	.next_thread = given_next_thread,
	.get_thread = nullptr,
	.memory_read = given_memory_read,
	.set_initial_registers = given_initial_registers,
	.detach = nullptr,
	.thread_detach = nullptr,
};

std::string base_name(const char *path)
{
	if (!path)
		return "";
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

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

} // namespace

Expected<std::unique_ptr<NativeSession>> NativeSession::open_core(const ElfCore &core)
{
	std::unique_ptr<NativeSession> s(new NativeSession());
	s->arch_ = core.arch();
	s->files_ = &core.files();
	s->target_ = &core;
	s->core_ = &core;
	active_files = s->files_;
	s->dwfl_ = dwfl_begin(&core_callbacks);
	if (!s->dwfl_)
		return fail(std::string("dwfl_begin: ") + dwfl_errmsg(-1));
	if (auto r = s->report_modules(s->dwfl_); !r)
		return std::unexpected(r.error());
	if (dwfl_core_file_attach(s->dwfl_, core.elf()) < 0)
		s->attach_error_ = dwfl_errmsg(-1);
	else
		s->attached_ = true;
	return s;
}

Expected<std::unique_ptr<NativeSession>> NativeSession::open_live(const LiveProcess &process)
{
	std::unique_ptr<NativeSession> s(new NativeSession());
	s->arch_ = process.arch();
	s->target_ = &process;
	pid_t pid = process.process().pid;
	s->dwfl_ = dwfl_begin(&live_callbacks);
	if (!s->dwfl_)
		return fail(std::string("dwfl_begin: ") + dwfl_errmsg(-1));
	if (auto r = s->report_modules(s->dwfl_); !r)
		return std::unexpected(r.error());
	// LiveProcess already holds every thread ptrace-stopped.
	if (dwfl_linux_proc_attach(s->dwfl_, pid, true) != 0)
		s->attach_error_ = dwfl_errmsg(-1);
	else
		s->attached_ = true;
	return s;
}

Expected<void> NativeSession::report_modules(Dwfl *dwfl) const
{
	dwfl_report_begin(dwfl);
	if (!core_) {
		if (dwfl_linux_proc_report(dwfl, target_->process().pid) != 0)
			return fail(std::string("reporting modules: ") + dwfl_errmsg(-1));
	} else if (core_->files().core_only()) {
		report_core_modules(dwfl, *core_);
	} else if (!core_->modules_without_nt_file().empty()) {
		// No NT_FILE: libdwfl cannot find the modules itself.
		for (const LoadedModule &m : core_->modules_without_nt_file()) {
			std::string file = core_->files().disk_path(m.path);
			dwfl_report_elf(dwfl, m.path.c_str(), file.c_str(), -1, m.bias, false);
		}
	} else {
		const std::string &exe = core_->files().exe_path();
		std::string exe_disk = exe.empty() ? "" : core_->files().disk_path(exe);
		if (dwfl_core_file_report(dwfl, core_->elf(),
					  exe_disk.empty() ? nullptr : exe_disk.c_str()) < 0)
			return fail(std::string("reporting modules: ") + dwfl_errmsg(-1));
	}
	if (dwfl_report_end(dwfl, nullptr, nullptr) != 0)
		return fail(std::string("reporting modules: ") + dwfl_errmsg(-1));
	return {};
}

NativeStack NativeSession::unwind_from(int32_t tid, uint64_t pc,
				       const std::vector<std::pair<unsigned, uint64_t>> &regs) const
{
	NativeStack stack;
	stack.tid = tid;
	std::unique_ptr<Dwfl, void (*)(Dwfl *)> dwfl(
		dwfl_begin(core_ ? &core_callbacks : &live_callbacks), dwfl_end);
	if (!dwfl) {
		stack.stop_reason = std::string("dwfl_begin: ") + dwfl_errmsg(-1);
		return stack;
	}
	if (auto r = report_modules(dwfl.get()); !r) {
		stack.stop_reason = r.error().message;
		return stack;
	}
	GivenFrame given{target_, tid, pc, regs};
	if (!dwfl_attach_state(dwfl.get(), core_ ? core_->elf() : nullptr, tid, &given_callbacks,
			       &given)) {
		stack.stop_reason = std::string("cannot unwind: ") + dwfl_errmsg(-1);
		return stack;
	}
	UnwindState st{&stack, this, arch_info(arch_).unwound_regs};
	dwfl_errno();
	int r = dwfl_getthread_frames(dwfl.get(), tid, on_frame, &st);
	if (r != 0 && stack.stop_reason.empty()) {
		int err = dwfl_errno();
		if (err != 0)
			stack.stop_reason = dwfl_errmsg(err);
	}
	return stack;
}

NativeStack NativeSession::unwind_sample(int32_t tid, const ThreadRegs &regs,
					 const Memory &memory) const
{
	NativeStack out;
	out.tid = tid;
	if (core_ || arch_ != Arch::x86_64) {
		out.stop_reason = "samples are unwound on live x86_64 processes only";
		return out;
	}
	if (!sample_dwfl_ && sample_error_.empty()) {
		sample_ = std::make_unique<GivenFrame>();
		sample_dwfl_ = dwfl_begin(&live_callbacks);
		if (!sample_dwfl_)
			sample_error_ = std::string("dwfl_begin: ") + dwfl_errmsg(-1);
		else if (auto r = report_modules(sample_dwfl_); !r)
			sample_error_ = r.error().message;
		else if (!dwfl_attach_state(sample_dwfl_, nullptr, target_->process().pid,
					    &given_callbacks, sample_.get()))
			sample_error_ = std::string("cannot unwind: ") + dwfl_errmsg(-1);
	}
	if (!sample_error_.empty()) {
		out.stop_reason = sample_error_;
		return out;
	}
	// x86_64: rax..r15 are DWARF 0-15, and 16 the return address column.
	sample_->memory = &memory;
	sample_->tid = tid;
	sample_->pc = regs.pc;
	sample_->regs.clear();
	for (unsigned i = 0; i <= 16; i++)
		sample_->regs.emplace_back(i, regs.dwarf[i]);
	sample_->listed = false;
	UnwindState st{&out, this, 17};
	dwfl_errno();
	int r = dwfl_getthread_frames(sample_dwfl_, tid, on_frame, &st);
	if (r != 0 && out.stop_reason.empty()) {
		int err = dwfl_errno();
		if (err != 0)
			out.stop_reason = dwfl_errmsg(err);
	}
	return out;
}

NativeSession::~NativeSession()
{
	if (sample_dwfl_)
		dwfl_end(sample_dwfl_);
	if (dwfl_)
		dwfl_end(dwfl_);
	if (files_ && active_files == files_)
		active_files = nullptr;
}

NativeStack NativeSession::unwind(int32_t tid) const
{
	NativeStack stack;
	stack.tid = tid;
	if (!attached_) {
		stack.stop_reason = "cannot unwind: " + attach_error_;
		return stack;
	}
	UnwindState st{&stack, this, arch_info(arch_).unwound_regs};
	dwfl_errno(); // clear a stale error of an earlier thread
	int r = dwfl_getthread_frames(dwfl_, tid, on_frame, &st);
	if (r != 0 && stack.stop_reason.empty()) {
		int err = dwfl_errno();
		// A clean end of the chain is not worth a message.
		if (err != 0)
			stack.stop_reason = dwfl_errmsg(err);
	}
	return stack;
}

Dwfl_Module *NativeSession::module_at(uint64_t addr) const
{
	return dwfl_addrmodule(dwfl_, addr);
}

const ModuleSymbols &NativeSession::symbols_of(Dwfl_Module *mod) const
{
	std::unique_ptr<ModuleSymbols> &table = tables_[mod];
	if (!table)
		table = std::make_unique<ModuleSymbols>(mod);
	return *table;
}

std::optional<SymbolInfo> NativeSession::symbol_at(uint64_t addr) const
{
	if (auto hit = symbols_.find(addr); hit != symbols_.end())
		return hit->second;
	if (symbols_.size() >= max_cached_symbols)
		symbols_.clear();
	std::optional<SymbolInfo> &found = symbols_[addr];
	Dwfl_Module *mod = dwfl_addrmodule(dwfl_, addr);
	if (!mod)
		return found;
	auto sym = symbols_of(mod).covering(addr);
	if (!sym)
		return found;
	const char *modname = dwfl_module_info(mod, nullptr, nullptr, nullptr, nullptr, nullptr,
					       nullptr, nullptr);
	found = SymbolInfo{sym->name, sym->value, sym->size, base_name(modname)};
	return found;
}

namespace {

// Libraries no LuaJIT lives in. A search by name looks at them last: their
// symbol tables (and the search for their debuginfo files) cost more than
// the rest of a backtrace, and what ljcore looks up is LuaJIT's.
bool system_library(const char *modname)
{
	static constexpr std::string_view names[] = {
		"libc.so",     "libm.so",       "ld-linux",     "libgcc_s.so", "libstdc++.so",
		"libdl.so",    "libpthread.so", "librt.so",     "[vdso]",      "linux-vdso",
		"libcrypt.so", "libz.so",       "libcrypto.so", "libssl.so",   "libpcre",
	};
	std::string base = base_name(modname);
	for (std::string_view n : names)
		if (base.starts_with(n))
			return true;
	return false;
}

struct SymbolSearch {
	const NativeSession &session;
	const std::string &name, &hint;
	bool system; // this pass looks at the system libraries only
	std::optional<SymbolInfo> found;
};

int search_module(Dwfl_Module *mod, void **, const char *modname, Dwarf_Addr, void *arg)
{
	auto *s = static_cast<SymbolSearch *>(arg);
	if (system_library(modname) != s->system)
		return DWARF_CB_OK;
	if (!s->hint.empty() && (!modname || !strstr(modname, s->hint.c_str())))
		return DWARF_CB_OK;
	if (auto sym = s->session.symbols_of(mod).named(s->name)) {
		s->found = SymbolInfo{sym->name, sym->value, sym->size, base_name(modname)};
		return DWARF_CB_ABORT;
	}
	return DWARF_CB_OK;
}

} // namespace

std::optional<SymbolInfo> NativeSession::symbol_by_name(const std::string &name,
							const std::string &hint) const
{
	SymbolSearch search{*this, name, hint, false, std::nullopt};
	for (bool system : {false, true}) {
		search.system = system;
		dwfl_getmodules(dwfl_, search_module, &search, 0);
		if (search.found)
			break;
	}
	return search.found;
}

std::string NativeSession::function_at(uint64_t addr) const
{
	auto sym = symbol_at(addr);
	return sym && sym->addr == addr ? sym->name : std::string();
}

std::vector<ModuleInfo> NativeSession::modules() const
{
	std::vector<ModuleInfo> out;
	dwfl_getmodules(
		dwfl_,
		[](Dwfl_Module *mod, void **, const char *name, Dwarf_Addr, void *arg) -> int {
			auto *v = static_cast<std::vector<ModuleInfo> *>(arg);
			ModuleInfo m;
			m.name = name ? name : "";
			const char *file = nullptr;
			dwfl_module_info(mod, nullptr, &m.low, &m.high, nullptr, nullptr, &file,
					 nullptr);
			GElf_Addr bias;
			if (dwfl_module_getelf(mod, &bias)) {
				const char *f = nullptr;
				dwfl_module_info(mod, nullptr, nullptr, nullptr, nullptr, nullptr,
						 &f, nullptr);
				m.file = f ? f : "";
				m.has_symbols = dwfl_module_getsymtab(mod) > 0;
			}
			const unsigned char *bits;
			GElf_Addr vaddr;
			int n = dwfl_module_build_id(mod, &bits, &vaddr);
			if (n > 0)
				m.build_id = hex_string(bits, size_t(n));
			v->push_back(std::move(m));
			return DWARF_CB_OK;
		},
		&out, 0);
	return out;
}

Dwarf *NativeSession::module_dwarf(Dwfl_Module *mod, uint64_t *bias) const
{
	Dwarf_Addr b = 0;
	Dwarf *dw = dwfl_module_getdwarf(mod, &b);
	*bias = b;
	return dw;
}

} // namespace ljcore
