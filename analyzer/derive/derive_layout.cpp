#include "analyzer/derive/derive_layout.h"

#include <algorithm>
#include <cstdio>
#include <optional>

#include "analyzer/derive/exported_code.h"
#include "analyzer/derive/value_tracker.h"

namespace ljcore {

namespace {

// The lj_layout members the rules below derive, for setting and reading
// them by name.
#define LJ_DERIVED_FIELDS(X)                                                                       \
	X(ptrsize)                                                                                 \
	X(gc64)                                                                                    \
	X(fr2)                                                                                     \
	X(L_glref)                                                                                 \
	X(L_status)                                                                                \
	X(L_base) X(L_top) X(L_stack) X(L_cframe) X(L_maxstack) X(L_env) X(L_size) X(gg_g)         \
		X(gg_size) X(g_mainthref) X(g_cur_L) X(g_gc_total) X(cts_size) X(cts_cb_sizeid)

// A function's code followed from its entry.
struct Traced {
	FunctionCode code;
	FunctionTrace trace;

	// "lua_close+0x31" for the instruction at addr.
	std::string at(uint64_t addr) const
	{
		char buf[32];
		snprintf(buf, sizeof buf, "+0x%llx", (unsigned long long)(addr - code.addr));
		return code.name + buf;
	}
	// Whether v is the base of an access or an argument of a call later on:
	// a pointer the function follows, not a number it only compares.
	bool followed(const TrackedValue &v) const
	{
		auto same_object = [&](const TrackedValue &o) {
			return o.kind == TrackedValue::pointer && o.arg == v.arg &&
			       o.path == v.path;
		};
		return std::any_of(trace.accesses.begin(), trace.accesses.end(),
				   [&](const MemoryAccess &a) { return same_object(a.object); }) ||
		       std::any_of(trace.calls.begin(), trace.calls.end(), [&](const CallSite &c) {
			       return std::any_of(c.args.begin(), c.args.end(), same_object);
		       });
	}
};

class Deriver {
public:
	Deriver(const ExportedCode &code, Disassembler &dis, DerivedLayout &out)
	    : code_(code), dis_(dis), out_(out)
	{
	}

	std::optional<Traced> follow(const std::string &name)
	{
		auto fn = code_.function(name);
		if (!fn) {
			out_.problems.push_back("could not derive from " + fn.error().message);
			return std::nullopt;
		}
		return follow(std::move(*fn));
	}

	// The function a call at caller's instruction at goes to, as
	// "(lua_newthread+0x1a)" in sources: most have no symbol.
	std::optional<Traced> follow_call(const Traced &caller, const CallSite &call)
	{
		auto fn = call.target ? code_.code_at(call.target, 512)
				      : Expected<FunctionCode>(fail("an indirect call"));
		if (!fn) {
			out_.problems.push_back("could not follow the call at " +
						caller.at(call.addr) + ": " + fn.error().message);
			return std::nullopt;
		}
		fn->name = "(" + caller.at(call.addr) + ")";
		return follow(std::move(*fn));
	}

	Traced follow(FunctionCode fn)
	{
		std::vector<Operation> ops;
		for (const MachineInsn &insn : dis_.disassemble(fn.bytes, fn.addr))
			ops.push_back(operation_of(insn, code_.arch()));
		FunctionTrace trace = track_values(ops, code_.arch());
		return Traced{std::move(fn), std::move(trace)};
	}

	void add(const std::string &name, uint32_t value, const std::string &source)
	{
		if (out_.field(name))
			return; // the first function that shows it wins
		out_.fields.push_back(DerivedField{name, value, source});
	}
	void problem(const std::string &field, const std::string &why)
	{
		out_.problems.push_back("could not derive " + field + ": " + why);
	}

	// lua_getallocf(L, &ud): g = G(L) is the one load from L that is
	// followed; its two loads are *ud = g->allocd and the returned
	// g->allocf, right before g->gc (layout.h: LJ_G_ALLOCF).
	void allocf()
	{
		auto f = follow("lua_getallocf");
		if (!f)
			return;
		for (const MemoryAccess &a : f->trace.accesses)
			if (!a.store && a.object.is(0, {}) && f->followed(a.value)) {
				add("L_glref", uint32_t(a.offset), f->at(a.addr));
				add_ptrsize(a.width, f->at(a.addr));
				glref_ = a.offset;
				break;
			}
		if (!glref_)
			return problem("L_glref", "lua_getallocf follows no field of L");
		// Each path loads them again: distinct offsets, each first seen.
		std::vector<const MemoryAccess *> from_g;
		for (const MemoryAccess &a : f->trace.accesses)
			if (!a.store && a.object.is(0, {*glref_}) && a.width == 8 &&
			    std::none_of(from_g.begin(), from_g.end(), [&](const MemoryAccess *b) {
				    return b->offset == a.offset;
			    }))
				from_g.push_back(&a);
		if (from_g.size() != 2 || std::abs(from_g[0]->offset - from_g[1]->offset) != 8)
			return problem("g_gc_total", "lua_getallocf does not load two adjacent "
						     "pointers from global_State");
		const MemoryAccess *allocf =
			from_g[0]->offset < from_g[1]->offset ? from_g[0] : from_g[1];
		add("g_gc_total", uint32_t(allocf->offset + 16), f->at(allocf->addr));
	}

	// lua_close(L): L = mainthread(g); setgcrefnull(g->cur_L); then
	// lj_func_closeuv(L, tvref(L->stack)), and in the loop L->status =
	// LUA_OK, L->cframe = NULL (lj_state.c).
	void close()
	{
		auto f = follow("lua_close");
		if (!f)
			return;
		if (!glref_)
			for (const MemoryAccess &a : f->trace.accesses)
				if (!a.store && a.object.is(0, {}) && f->followed(a.value)) {
					add("L_glref", uint32_t(a.offset), f->at(a.addr));
					add_ptrsize(a.width, f->at(a.addr));
					glref_ = a.offset;
					break;
				}
		if (!glref_ || !ptrsize_)
			return problem("g_cur_L", "lua_close follows no field of L");
		std::optional<int64_t> mainthref;
		for (const MemoryAccess &a : f->trace.accesses) {
			if (a.store || !a.object.is(0, {*glref_}) || a.width != ptrsize_ ||
			    !f->followed(a.value))
				continue;
			add("g_mainthref", uint32_t(a.offset), f->at(a.addr));
			mainthref = a.offset;
			break;
		}
		for (const MemoryAccess &a : f->trace.accesses)
			if (a.store && a.object.is(0, {*glref_}) && a.width == ptrsize_ &&
			    a.value.kind == TrackedValue::constant && a.value.k == 0) {
				add("g_cur_L", uint32_t(a.offset), f->at(a.addr));
				break;
			}
		if (!out_.field("g_cur_L"))
			problem("g_cur_L", "lua_close stores no NULL into global_State");
		if (!mainthref)
			return problem("g_mainthref", "lua_close follows no field of global_State");
		std::vector<int64_t> main_L = {*glref_, *mainthref};
		for (const MemoryAccess &a : f->trace.accesses) {
			if (!a.object.is(0, main_L))
				continue;
			if (!a.store && a.width == ptrsize_)
				add("L_stack", uint32_t(a.offset), f->at(a.addr));
			bool null =
				a.store && a.value.kind == TrackedValue::constant && a.value.k == 0;
			if (null && a.width == 1)
				add("L_status", uint32_t(a.offset), f->at(a.addr));
			if (null && a.width == 8)
				add("L_cframe", uint32_t(a.offset), f->at(a.addr));
		}
		for (const char *name : {"L_stack", "L_status", "L_cframe"})
			if (!out_.field(name))
				problem(name, "lua_close does not show it");
	}

	// lua_gettop(L): L->top - L->base.
	void gettop()
	{
		auto f = follow("lua_gettop");
		if (!f)
			return;
		for (const Subtraction &s : f->trace.subtractions)
			if (s.minuend.kind == TrackedValue::pointer && s.minuend.path.size() == 1 &&
			    s.minuend.is(0, {s.minuend.path[0]}) &&
			    s.subtrahend.kind == TrackedValue::pointer &&
			    s.subtrahend.path.size() == 1 &&
			    s.subtrahend.is(0, {s.subtrahend.path[0]})) {
				add("L_top", uint32_t(s.minuend.path[0]), f->at(s.addr));
				add("L_base", uint32_t(s.subtrahend.path[0]), f->at(s.addr));
				return;
			}
		problem("L_top and L_base", "lua_gettop subtracts no two fields of L");
	}

	// lua_status(L): L->status, a byte.
	void status()
	{
		auto f = follow("lua_status");
		if (!f)
			return;
		for (const MemoryAccess &a : f->trace.accesses)
			if (!a.store && a.object.is(0, {}) && a.width == 1) {
				add("L_status", uint32_t(a.offset), f->at(a.addr));
				return;
			}
		problem("L_status", "lua_status reads no byte of L");
	}

	// lua_newthread(L): lj_gc_check(L), then L1 = lj_state_new(L), which
	// allocates sizeof(lua_State) (GG_State's g follows the main one) and
	// copies L->glref and L->env into it; then incr_top(L) checks
	// L->maxstack (lj_api.c, lj_state.c).
	void newthread()
	{
		auto f = follow("lua_newthread");
		if (!f)
			return;
		auto first_call = [](const Traced &t, auto pred) -> const CallSite * {
			auto it = std::find_if(t.trace.calls.begin(), t.trace.calls.end(), pred);
			return it == t.trace.calls.end() ? nullptr : &*it;
		};
		auto allocation = [](const CallSite &c) {
			return c.args.size() > 1 && c.args[0].is(0, {}) &&
			       c.args[1].kind == TrackedValue::constant && c.args[1].k >= 32 &&
			       c.args[1].k <= 1024;
		};
		// lj_state_new inlined (Debian's -O2 does) or called.
		const Traced *s = &*f;
		const CallSite *alloc = first_call(*f, allocation);
		const CallSite *state_new = alloc;
		std::optional<Traced> callee;
		if (!alloc) {
			state_new = first_call(*f, [](const CallSite &c) {
				return !c.args.empty() && c.args[0].is(0, {});
			});
			if (!state_new)
				return problem("L_size", "lua_newthread calls nothing with L");
			if (!(callee = follow_call(*f, *state_new)))
				return;
			s = &*callee;
			alloc = first_call(*s, allocation);
		}
		if (!alloc)
			return problem("L_size", "lj_state_new allocates no constant size");
		add("L_size", uint32_t(alloc->args[1].k), s->at(alloc->addr));
		// GG_State starts with the main lua_State, global_State right
		// after it (lj_dispatch.h).
		add("gg_g", uint32_t(alloc->args[1].k), s->at(alloc->addr));
		// The new thread is what the allocation returned: the field of L
		// copied to the same offset of it, other than glref, is env.
		unsigned result =
			TrackedValue::call_result + unsigned(alloc - s->trace.calls.data());
		std::optional<int64_t> env;
		for (const MemoryAccess &a : s->trace.accesses)
			if (a.store && a.object.is(result, {}) && a.value.path.size() == 1 &&
			    a.value.is(0, {a.offset}) && glref_ && a.offset != *glref_) {
				add("L_env", uint32_t(a.offset), s->at(a.addr));
				env = a.offset;
				break;
			}
		if (!env)
			problem("L_env", "lj_state_new copies no field of L but glref");
		// incr_top(L) after it: the field of L it reads besides these.
		const auto *base = out_.field("L_base"), *top = out_.field("L_top");
		if (!base || !top || !glref_ || !env)
			return problem("L_maxstack", "lua_newthread's other fields are unknown");
		for (const MemoryAccess &a : f->trace.accesses)
			if (!a.store && a.object.is(0, {}) && a.addr > state_new->addr &&
			    a.offset != base->value && a.offset != top->value &&
			    a.offset != *glref_ && a.offset != *env) {
				add("L_maxstack", uint32_t(a.offset), f->at(a.addr));
				return;
			}
		problem("L_maxstack", "lua_newthread does not show it");
	}

	// lj_state_newstate (lua_newstate with GC64; luaL_newstate calls it
	// in every build): GG = allocf(allocd, NULL, 0, sizeof(GG_State)),
	// the one allocation of a constant size with no old block (lj_state.c).
	void gg_size()
	{
		auto allocation = [](const CallSite &c) {
			auto zero = [](const TrackedValue &v) {
				return v.kind == TrackedValue::constant && v.k == 0;
			};
			return c.args.size() > 3 && zero(c.args[1]) && zero(c.args[2]) &&
			       c.args[3].kind == TrackedValue::constant && c.args[3].k >= 1024 &&
			       c.args[3].k <= 65536;
		};
		auto find_in = [&](const Traced &t) {
			for (const CallSite &c : t.trace.calls)
				if (allocation(c)) {
					add("gg_size", uint32_t(c.args[3].k), t.at(c.addr));
					return true;
				}
			return false;
		};
		for (const char *name : {"lua_newstate", "luaL_newstate"}) {
			auto f = follow(name);
			if (!f)
				continue;
			if (find_in(*f))
				return;
			// One call deeper: luaL_newstate calls lj_state_newstate.
			size_t followed = 0;
			for (const CallSite &c : f->trace.calls) {
				if (!c.target || ++followed > 4)
					continue;
				auto callee = follow_call(*f, c);
				if (callee && find_in(*callee))
					return;
			}
		}
		problem("gg_size", "no allocation of sizeof(GG_State) in lua_newstate or "
				   "luaL_newstate");
	}

	// luaopen_ffi(L) first calls lj_ctype_init(L) (lib_ffi.c), whose
	// first allocation is the CTState: lj_mem_realloc(L, NULL, 0,
	// sizeof(CTState)) (lj_ctype.c, lj_gc.h lj_mem_newt). A build
	// without the FFI exports no luaopen_ffi, and has no CTState to read.
	void ctype_state()
	{
		if (!code_.function("luaopen_ffi"))
			return;
		auto f = follow("luaopen_ffi");
		if (!f)
			return;
		auto allocation = [](const CallSite &c) {
			auto zero = [](const TrackedValue &v) {
				return v.kind == TrackedValue::constant && v.k == 0;
			};
			return c.args.size() > 3 && c.args[0].is(0, {}) && zero(c.args[1]) &&
			       zero(c.args[2]) && c.args[3].kind == TrackedValue::constant &&
			       c.args[3].k >= 256 && c.args[3].k <= 4096;
		};
		auto add_from = [&](const Traced &t) {
			for (const CallSite &c : t.trace.calls)
				if (allocation(c)) {
					// CTState ends with cb.sizeid, topid, slot
					// (16 bytes with padding) and hash[128]
					// (lj_ctype.h): the same in every version.
					add("cts_size", uint32_t(c.args[3].k), t.at(c.addr));
					add("cts_cb_sizeid", uint32_t(c.args[3].k - 272),
					    t.at(c.addr));
					return true;
				}
			return false;
		};
		// lj_ctype_init inlined, or the first call with L.
		if (add_from(*f))
			return;
		auto init = std::find_if(
			f->trace.calls.begin(), f->trace.calls.end(),
			[](const CallSite &c) { return !c.args.empty() && c.args[0].is(0, {}); });
		if (init == f->trace.calls.end())
			return problem("cts_size", "luaopen_ffi calls nothing with L");
		auto callee = follow_call(*f, *init);
		if (callee && !add_from(*callee))
			problem("cts_size", "lj_ctype_init allocates no constant size");
	}

private:
	void add_ptrsize(uint8_t width, const std::string &source)
	{
		if (width != 4 && width != 8)
			return problem("ptrsize",
				       "L->glref is loaded as " + std::to_string(width) + " bytes");
		ptrsize_ = width;
		add("ptrsize", width, source);
		add("gc64", width == 8, source);
		add("fr2", width == 8, source); // LJ_FR2 comes with GC64 (lj_arch.h)
	}

	const ExportedCode &code_;
	Disassembler &dis_;
	DerivedLayout &out_;
	std::optional<int64_t> glref_;
	uint8_t ptrsize_ = 0;
};

} // namespace

const DerivedField *DerivedLayout::field(const std::string &name) const
{
	auto it = std::find_if(fields.begin(), fields.end(),
			       [&](const DerivedField &f) { return f.name == name; });
	return it == fields.end() ? nullptr : &*it;
}

Expected<DerivedLayout> derive_layout(Elf *elf)
{
	auto code = ExportedCode::open(elf);
	if (!code)
		return fail("could not derive: " + code.error().message);
	auto dis = Disassembler::create(code->arch());
	if (!dis)
		return fail("could not derive: " + dis.error().message);
	DerivedLayout out;
	out.arch = code->arch();
	Deriver d(*code, **dis, out);
	// lua_getallocf first: its one load from L is G(L), which the others
	// follow.
	d.allocf();
	d.close();
	d.gettop();
	d.status();
	d.newthread();
	d.gg_size();
	d.ctype_state();
	if (!out.field("L_glref")) {
		std::string why = out.problems.empty() ? "no rule applied" : out.problems.front();
		return fail("could not derive: " + why);
	}
	return out;
}

std::optional<uint32_t> layout_field(const lj_layout &ly, const std::string &name)
{
#define LJ_GET(f)                                                                                  \
	if (name == #f)                                                                            \
		return uint32_t(ly.f);
	LJ_DERIVED_FIELDS(LJ_GET)
#undef LJ_GET
	return std::nullopt;
}

std::vector<const lj_layout *> nearest_tables(const std::vector<const lj_layout *> &tables,
					      const DerivedLayout &derived, bool nearest_only)
{
	std::vector<std::pair<size_t, const lj_layout *>> scored;
	const DerivedField *ptrsize = derived.field("ptrsize");
	for (const lj_layout *t : tables) {
		if (ptrsize && t->ptrsize != ptrsize->value)
			continue;
		size_t agree = 0;
		for (const DerivedField &f : derived.fields)
			agree += layout_field(*t, f.name) == f.value;
		scored.emplace_back(agree, t);
	}
	std::stable_sort(scored.begin(), scored.end(),
			 [](auto &a, auto &b) { return a.first > b.first; });
	std::vector<const lj_layout *> out;
	for (auto &[agree, t] : scored)
		if (!nearest_only || agree == scored.front().first)
			out.push_back(t);
	return out;
}

lj_layout with_derived(const lj_layout &base, const DerivedLayout &derived,
		       std::vector<std::string> *changed)
{
	lj_layout ly = base;
	for (const DerivedField &f : derived.fields) {
		auto old = layout_field(ly, f.name);
		if (changed && old && *old != f.value)
			changed->push_back(f.name + " " + std::to_string(*old) + " -> " +
					   std::to_string(f.value));
#define LJ_SET(m)                                                                                  \
	if (f.name == #m)                                                                          \
		ly.m = decltype(ly.m)(f.value);
		LJ_DERIVED_FIELDS(LJ_SET)
#undef LJ_SET
	}
	return ly;
}

} // namespace ljcore
