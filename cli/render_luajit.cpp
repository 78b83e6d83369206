// debug.traceback() as LuaJIT formats it (luaL_traceback in lj_debug.c).
#include <climits>

#include "analyzer/lua_symbolize.h"
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

} // namespace

void render_luajit(std::ostream &out, const Analysis &a, const RenderOptions &o)
{
	for (auto &vm : a.vms) {
		const auto &frames = vm.stack.frames;
		const size_t n = frames.size();
		out << "stack traceback:";
		size_t level = size_t(std::max(o.level, 0));
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
}

} // namespace ljcore
