// debug.traceback() as LuaJIT formats it (luaL_traceback in lj_debug.c).
#include <climits>

#include "analyzer/model/lua_text.h"
#include "cli/render.h"

namespace ljcore {

namespace {

// Leading and trailing levels when the middle of a traceback is elided
// (TRACEBACK_LEVELS1 and TRACEBACK_LEVELS2).
constexpr size_t levels_head = 12;
constexpr size_t levels_tail = 10;

void frame_line(std::ostream &out, const LuaFrame &f)
{
	if (f.ffid > LJ_FF_C && f.namewhat.empty())
		out << "\n\t[builtin#" << f.ffid << "]:";
	else
		out << "\n\t" << f.short_src << ":";
	if (f.current_line > 0)
		out << f.current_line << ":";
	if (!f.namewhat.empty())
		out << " in function '" << f.name << "'";
	else if (f.what == "main")
		out << " in main chunk";
	else if (f.what == "C")
		out << " at " << luajit_pointer(f.c_function);
	else
		out << " in function <" << f.short_src << ":" << f.line_defined << ">";
}

// "-- VM 0x... (thread 123, crashed)": which VM the block that follows is
// of, when there are several (a Lua comment, so the output still reads as
// Lua's own).
void vm_label(std::ostream &out, const Analysis &a, const VmResult &vm)
{
	out << "-- VM " << luajit_pointer(vm.global_state);
	if (vm.tid) {
		out << " (thread " << vm.tid;
		for (auto &t : a.threads)
			if (t.tid == vm.tid && t.crashed)
				out << ", crashed";
		out << ")";
	}
	out << "\n";
}

} // namespace

void luajit_traceback(std::ostream &out, const LuaStack &stack, int first_level)
{
	const auto &frames = stack.frames;
	const size_t n = frames.size();
	out << "stack traceback:";
	size_t level = size_t(std::max(first_level, 0));
	size_t limit = levels_head;
	while (level < n) {
		size_t next = level + 1;
		if (next > limit) {
			limit = SIZE_MAX;
			// Elide only if at least levels_tail more follow.
			if (next + levels_tail < n) {
				out << "\n\t...";
				level = n - levels_tail;
			}
			continue;
		}
		frame_line(out, frames[level]);
		level = next;
	}
	out << "\n";
}

void render_luajit(std::ostream &out, const Analysis &a, const RenderOptions &o)
{
	for (auto &vm : a.vms) {
		// One VM prints exactly what debug.traceback() would.
		if (a.vms.size() > 1)
			vm_label(out, a, vm);
		if (!o.all) {
			luajit_traceback(out, vm.stack, o.level);
			continue;
		}
		// As debug.traceback(co) would print each: level 0 for all but
		// the running one, "thread: %p" as tostring(co) names it.
		for (auto &co : vm.coroutines) {
			out << "thread: " << luajit_pointer(co.L) << "\n";
			luajit_traceback(out, co.stack, co.L == vm.stack.L ? o.level : 0);
			out << "\n";
		}
	}
}

} // namespace ljcore
