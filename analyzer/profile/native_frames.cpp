#include "analyzer/profile/native_frames.h"

#include <cstring>
#include <optional>

#include "analyzer/lua/lua_state.h"
#include "analyzer/profile/profiled_arch.h"
#include "analyzer/stack/lua_runs.h"

namespace ljcore {

namespace {

// The process's memory as the sample saw it where the sample kept a copy:
// the stack from sp, and L->cframe (the C frame chain starts there, and
// the process has moved on since).
class SampleMemory final : public Memory {
public:
	SampleMemory(const Memory &process, const lj_profile_sample &s, uint64_t cframe_at)
	    : process_(process), sp_(s.regs[arch_info(profiled_arch).sp]),
	      stack_(reinterpret_cast<const std::byte *>(s.stack),
		     std::min<size_t>(s.stack_len, LJ_PROFILE_STACK_BYTES)),
	      cframe_at_(cframe_at), cframe_(s.cframe)
	{
	}

	std::expected<void, ReadMiss> read(uint64_t addr, std::span<std::byte> out) const override
	{
		if (addr >= sp_ && addr - sp_ <= stack_.size() &&
		    stack_.size() - (addr - sp_) >= out.size()) {
			memcpy(out.data(), stack_.data() + (addr - sp_), out.size());
			return {};
		}
		if (addr == cframe_at_ && out.size() == sizeof cframe_) {
			memcpy(out.data(), &cframe_, sizeof cframe_);
			return {};
		}
		return process_.read(addr, out);
	}

private:
	const Memory &process_;
	uint64_t sp_;
	std::span<const std::byte> stack_;
	uint64_t cframe_at_;
	uint64_t cframe_;
};

ProfileFrame native_frame(const NativeFrame &f)
{
	ProfileFrame p;
	p.kind = ProfileFrameKind::native;
	p.name = f.function;
	// The module's file name, as analyze prints it: a frame without a
	// symbol is labelled by it, and a path would tie the profile to the
	// machine it was taken on.
	size_t slash = f.module.rfind('/');
	p.file = slash == std::string::npos ? f.module : f.module.substr(slash + 1);
	if (p.file.empty() && p.name.empty())
		p.file = "unknown";
	return p;
}

// A sample in a trace: libdwfl stops at its machine code (no CFI) and goes
// on from the interpreter's C frame, as the crash path does
// (jloop_handler()). mem reads the sample's memory.
void unwind_below_trace(const NativeSession &native, const Vm &mem, const lj_profile_sample &s,
			const ThreadRegs &regs, NativeStack &stack)
{
	// The trace's own frame: the first in no module (a helper it called,
	// lj_vm_modi say, may be above it).
	size_t k = 0;
	while (k < stack.frames.size() &&
	       !(stack.frames[k].module.empty() && stack.frames[k].function.empty()))
		k++;
	auto handler = jloop_handler(mem);
	if (k == stack.frames.size() || !handler || !s.cframe)
		return;
	const ArchInfo &arch = arch_info(profiled_arch);
	ThreadRegs below = regs;
	below.dwarf[arch.sp] = below.sp = s.cframe;
	below.dwarf[arch.pc] = below.pc = *handler;
	NativeStack rest = native.unwind_sample(int32_t(s.tid), below, mem.memory());
	if (rest.frames.empty())
		return;
	stack.frames.resize(k + 1);
	stack.frames[k].module = "JIT code";
	for (NativeFrame &f : rest.frames)
		stack.frames.push_back(std::move(f));
}

} // namespace

bool mix_native_frames(const NativeSession &native, const Vm &vm, const lj_profile_sample &s,
		       const std::vector<WalkedFrame> &raw, size_t ninlined,
		       const std::vector<ProfileFrame> &lua, std::vector<ProfileFrame> &out,
		       std::string &why)
{
	if (s.stack_len == 0) {
		why = "no registers or stack copied";
		return false;
	}
	const ArchInfo &arch = arch_info(profiled_arch);
	ThreadRegs regs;
	for (size_t i = 0; i < LJ_PROFILE_NREGS; i++)
		regs.dwarf[i] = s.regs[i];
	regs.pc = s.regs[arch.pc];
	regs.sp = s.regs[arch.sp];
	SampleMemory mem(vm.memory(), s, LuaState(vm, s.L).cframe_addr());
	NativeStack stack = native.unwind_sample(int32_t(s.tid), regs, mem);
	Vm lmem(mem, vm.layout(), vm.g());
	if (s.vmstate > 0)
		unwind_below_trace(native, lmem, s, regs, stack);
	if (stack.frames.empty()) {
		why = "native unwinding failed: " + stack.stop_reason;
		return false;
	}
	if (lua.empty()) {
		out.clear();
		for (size_t j = stack.frames.size(); j-- > 0;)
			out.push_back(native_frame(stack.frames[j]));
		return true;
	}

	// The runs of Lua frames and the native frame of each, by the crash
	// path's own code: frame_cframes() and place_lua_runs().
	LuaStack ls;
	ls.L = s.L;
	for (size_t i = 0; i < raw.size(); i++) {
		LuaFrame f;
		f.slot = raw[i].slot;
		f.level = uint32_t(i);
		f.inlined = i < ninlined;
		ls.frames.push_back(f);
	}
	std::vector<ThreadResult> thread(1);
	place_lua_runs(thread, {stack}, profiled_arch, 0, ls, frame_cframes(lmem, ls), 0);
	if (thread[0].lua_runs.empty()) {
		why = "no native frame runs the Lua frames";
		return false;
	}
	// Each Lua frame's native frame. A run no native frame claims (its C
	// frame unread) runs where the run inside it runs, else the one
	// outside it.
	constexpr size_t unplaced = SIZE_MAX;
	std::vector<size_t> at(lua.size(), unplaced);
	for (const LuaRun &run : thread[0].lua_runs)
		for (uint32_t i = run.first_level; i < run.first_level + run.count && i < at.size();
		     i++)
			at[i] = run.native_frame.value_or(unplaced);
	for (size_t i = 1; i < at.size(); i++)
		if (at[i] == unplaced)
			at[i] = at[i - 1];
	for (size_t i = at.size(); i-- > 0;)
		if (at[i] == unplaced)
			at[i] = i + 1 < at.size() ? at[i + 1] : 0;
	// Root first: native frames from the outermost in, each followed by
	// the Lua frames it runs, outermost first; Lua frames never change
	// their order.
	out.clear();
	size_t next = lua.size(); // lua[] is innermost first
	for (size_t j = stack.frames.size(); j-- > 0;) {
		out.push_back(native_frame(stack.frames[j]));
		while (next > 0 && at[next - 1] >= j)
			out.push_back(lua[--next]);
	}
	while (next > 0)
		out.push_back(lua[--next]);
	return true;
}

} // namespace ljcore
