// NativeSession's unwinding: libdwfl's CFI unwinder over a thread of the
// target, or from registers given.
#include "readers/native_stack.h"

#include <cstring>

#include "readers/dwfl_files.h"
#include "readers/dwfl_report.h"
#include "readers/given_frame.h"

namespace ljcore {

namespace {

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
		// By file name, as symbol_at() names it: modules reported from
		// NT_FILE (a fixture, a core's head) carry the whole path.
		const char *slash = name ? strrchr(name, '/') : nullptr;
		f.module = slash ? slash + 1 : name ? name : "";
	}
	st->stack->frames.push_back(std::move(f));
	if (st->stack->frames.size() >= NativeSession::max_frames) {
		st->stack->stop_reason =
			"stopped after " + std::to_string(NativeSession::max_frames) + " frames";
		return DWARF_CB_ABORT;
	}
	return DWARF_CB_OK;
}

// Unwinds thread tid of dwfl into stack, frame after frame.
void walk_frames(Dwfl *dwfl, int32_t tid, const NativeSession &session, int nregs,
		 NativeStack &stack)
{
	UnwindState st{&stack, &session, nregs};
	dwfl_errno(); // clear a stale error of an earlier thread
	int r = dwfl_getthread_frames(dwfl, tid, on_frame, &st);
	if (r != 0 && stack.stop_reason.empty()) {
		int err = dwfl_errno();
		// A clean end of the chain is not worth a message.
		if (err != 0)
			stack.stop_reason = dwfl_errmsg(err);
	}
}

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

} // namespace

NativeStack NativeSession::unwind(int32_t tid) const
{
	NativeStack stack;
	stack.tid = tid;
	if (from_registers_) {
		const int nregs = arch_info(arch_).unwound_regs;
		for (const ThreadInfo &t : target_->threads()) {
			if (t.tid != tid)
				continue;
			std::vector<std::pair<unsigned, uint64_t>> regs;
			for (int i = 0; i < nregs; i++)
				regs.emplace_back(unsigned(i), t.regs.dwarf[size_t(i)]);
			return unwind_from(tid, t.regs.pc, regs);
		}
		stack.stop_reason = "no such thread";
		return stack;
	}
	if (!attached_) {
		stack.stop_reason = "cannot unwind: " + attach_error_;
		return stack;
	}
	walk_frames(dwfl_, tid, *this, arch_info(arch_).unwound_regs, stack);
	return stack;
}

NativeStack NativeSession::unwind_from(int32_t tid, uint64_t pc,
				       const std::vector<std::pair<unsigned, uint64_t>> &regs) const
{
	NativeStack stack;
	stack.tid = tid;
	if (!target_) {
		stack.stop_reason = "cannot unwind: " + attach_error_;
		return stack;
	}
	std::unique_ptr<Dwfl, void (*)(Dwfl *)> dwfl(
		dwfl_begin(core_ ? &core_dwfl_callbacks : &live_dwfl_callbacks), dwfl_end);
	if (!dwfl) {
		stack.stop_reason = std::string("dwfl_begin: ") + dwfl_errmsg(-1);
		return stack;
	}
	if (auto r = report_modules(dwfl.get(), *target_, core_); !r) {
		stack.stop_reason = r.error().message;
		return stack;
	}
	GivenFrame given{target_, tid, pc, regs};
	if (!dwfl_attach_state(dwfl.get(), core_ ? core_->elf() : nullptr, tid, &given_callbacks,
			       &given)) {
		stack.stop_reason = std::string("cannot unwind: ") + dwfl_errmsg(-1);
		return stack;
	}
	walk_frames(dwfl.get(), tid, *this, arch_info(arch_).unwound_regs, stack);
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
	if (!target_) {
		out.stop_reason = "cannot unwind: " + attach_error_;
		return out;
	}
	if (!sample_dwfl_ && sample_error_.empty()) {
		sample_ = std::make_unique<GivenFrame>();
		sample_dwfl_ = dwfl_begin(&live_dwfl_callbacks);
		if (!sample_dwfl_)
			sample_error_ = std::string("dwfl_begin: ") + dwfl_errmsg(-1);
		else if (auto r = report_modules(sample_dwfl_, *target_, nullptr); !r)
			sample_error_ = r.error().message;
		else if (!dwfl_attach_state(sample_dwfl_, nullptr, target_->process().pid,
					    &given_callbacks, sample_.get()))
			sample_error_ = std::string("cannot unwind: ") + dwfl_errmsg(-1);
	}
	if (!sample_error_.empty()) {
		out.stop_reason = sample_error_;
		return out;
	}
	// Every register the unwinder sets (x86_64: rax..r15 and the return
	// address column), as the sample caught them.
	const int nregs = arch_info(arch_).unwound_regs;
	sample_->memory = &memory;
	sample_->tid = tid;
	sample_->pc = regs.pc;
	sample_->regs.clear();
	for (int i = 0; i < nregs; i++)
		sample_->regs.emplace_back(unsigned(i), regs.dwarf[size_t(i)]);
	sample_->listed = false;
	walk_frames(sample_dwfl_, tid, *this, nregs, out);
	return out;
}

} // namespace ljcore
