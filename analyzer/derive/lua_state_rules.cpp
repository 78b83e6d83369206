// The rules that read lua_State's fields (and G(L), mainthread(g)) from
// lua_getallocf, lua_close, lua_gettop, lua_status and lua_newthread.
#include <algorithm>

#include "analyzer/derive/deriver.h"

namespace ljcore {

// lua_getallocf(L, &ud): g = G(L) is the one load from L that is
// followed (to load *ud = g->allocd and the returned g->allocf).
void Deriver::allocf()
{
	auto f = follow("lua_getallocf");
	if (f && !glref_from(*f))
		problem("L_glref", "lua_getallocf follows no field of L");
}

// G(L): the first load from L whose value f follows.
bool Deriver::glref_from(const Traced &f)
{
	const MemoryAccess *a = first_access(f, [&](const MemoryAccess &a) {
		return !a.store && a.object.is(0, {}) && f.followed(a.value);
	});
	if (!a)
		return false;
	add("L_glref", uint32_t(a->offset), f.at(a->addr));
	add_ptrsize(a->width, f.at(a->addr));
	glref_ = a->offset;
	return true;
}

// lua_close(L): L = mainthread(g); setgcrefnull(g->cur_L); then
// lj_func_closeuv(L, tvref(L->stack)), and in the loop L->status =
// LUA_OK, L->cframe = NULL (lj_state.c).
void Deriver::close()
{
	close_ = follow("lua_close");
	const auto &f = close_;
	if (!f)
		return;
	if (!glref_)
		glref_from(*f);
	if (!glref_ || !ptrsize_)
		return problem("g_cur_L", "lua_close follows no field of L");
	std::optional<int64_t> mainthref;
	if (const MemoryAccess *a = first_access(*f, [&](const MemoryAccess &a) {
		    return !a.store && a.object.is(0, {*glref_}) && a.width == ptrsize_ &&
			   f->followed(a.value);
	    })) {
		add("g_mainthref", uint32_t(a->offset), f->at(a->addr));
		mainthref = a->offset;
	}
	if (const MemoryAccess *a = first_access(*f, [&](const MemoryAccess &a) {
		    return a.store && a.object.is(0, {*glref_}) && a.width == ptrsize_ &&
			   a.value.kind == TrackedValue::constant && a.value.k == 0;
	    }))
		add("g_cur_L", uint32_t(a->offset), f->at(a->addr));
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
		bool null = a.store && a.value.kind == TrackedValue::constant && a.value.k == 0;
		if (null && a.width == 1)
			add("L_status", uint32_t(a.offset), f->at(a.addr));
		if (null && a.width == 8)
			add("L_cframe", uint32_t(a.offset), f->at(a.addr));
	}
	for (const char *name : {"L_stack", "L_status", "L_cframe"})
		if (!out_.field(name))
			problem(name, "lua_close does not show it");
	// Its finalizer loop ends when gcref(g->gc.mmudata) is NULL: the
	// one other GCRef of g it reads, in GCState, before cur_L.
	const DerivedField *cur_L = out_.field("g_cur_L");
	if (const MemoryAccess *a = first_access(*f, [&](const MemoryAccess &a) {
		    return !a.store && a.object.is(0, {*glref_}) && a.width == ptrsize_ &&
			   a.offset != *mainthref && cur_L && a.offset < cur_L->value;
	    }))
		return add("g_gc_mmudata", uint32_t(a->offset), f->at(a->addr));
	problem("g_gc_mmudata", "lua_close reads no other GCRef of global_State");
}

// lua_close(L) calls lj_func_closeuv(L, tvref(L->stack)) for the main
// thread L (lj_state.c), which closes the upvalues on L->openupval while
// their uvval(uv), mref(uv->v), is at or above the stack's start
// (lj_func.c): openupval is the pointer of L read at GCupval's v. Runs
// after getupvalue(), which reads v.
void Deriver::openupval()
{
	const DerivedField *stack = out_.field("L_stack"), *v = out_.field("uv_v"),
			   *main = out_.field("g_mainthref");
	if (!close_ || !stack || !main || !glref_)
		return;
	if (!v)
		return unshown("L_openupval", "GCupval's v is unknown");
	std::vector<int64_t> L = {*glref_, main->value};
	auto read_at_v = [&](const Traced &t, unsigned arg, const std::vector<int64_t> &path) {
		const MemoryAccess *a = first_access(t, [&](const MemoryAccess &a) {
			return !a.store && a.offset == v->value && a.object.member_of(arg, path);
		});
		if (a)
			add("L_openupval", uint32_t(a->object.path.back()), t.at(a->addr));
		return a != nullptr;
	};
	std::vector<int64_t> L_stack = L;
	L_stack.push_back(stack->value);
	for (const CallSite &c : close_->trace.calls) {
		if (c.args.size() < 2 || !c.args[0].is(0, L) || !c.args[1].is(0, L_stack) ||
		    !c.target)
			continue;
		auto closeuv = follow_call(*close_, c, 192);
		if (closeuv && read_at_v(*closeuv, 0, {}))
			return;
		break;
	}
	// lj_func_closeuv inlined.
	if (!read_at_v(*close_, 0, L))
		unshown("L_openupval", "lua_close closes no upvalue of the main thread");
}

// lua_gettop(L): L->top - L->base.
void Deriver::gettop()
{
	auto f = follow("lua_gettop");
	if (!f)
		return;
	for (const Subtraction &s : f->trace.subtractions)
		if (s.minuend.kind == TrackedValue::pointer && s.minuend.path.size() == 1 &&
		    s.minuend.is(0, {s.minuend.path[0]}) &&
		    s.subtrahend.kind == TrackedValue::pointer && s.subtrahend.path.size() == 1 &&
		    s.subtrahend.is(0, {s.subtrahend.path[0]})) {
			add("L_top", uint32_t(s.minuend.path[0]), f->at(s.addr));
			add("L_base", uint32_t(s.subtrahend.path[0]), f->at(s.addr));
			return;
		}
	problem("L_top and L_base", "lua_gettop subtracts no two fields of L");
}

// lua_status(L): L->status, a byte.
void Deriver::status()
{
	auto f = follow("lua_status");
	if (!f)
		return;
	if (const MemoryAccess *a = first_access(*f, [](const MemoryAccess &a) {
		    return !a.store && a.object.is(0, {}) && a.width == 1;
	    }))
		return add("L_status", uint32_t(a->offset), f->at(a->addr));
	problem("L_status", "lua_status reads no byte of L");
}

// lua_checkstack(L, size): when L->maxstack is too near L->top,
// lj_state_growstack(L, size), which starts from L->stacksize, a 32-bit
// field of L (lj_api.c, lj_state.c): the first such load from L other than
// the fields known already (MRefs are 32 bits too without GC64).
void Deriver::stacksize()
{
	auto f = follow("lua_checkstack");
	const DerivedField *size = out_.field("L_size");
	if (!f || !size)
		return;
	auto stacksize = [&](const Traced &t) {
		const MemoryAccess *a = first_access(t, [&](const MemoryAccess &a) {
			if (a.store || a.width != 4 || !a.object.is(0, {}) || a.offset <= 0 ||
			    a.offset + 4 > size->value)
				return false;
			for (const DerivedField &known : out_.fields)
				if (known.name.starts_with("L_") && known.name != "L_size" &&
				    known.value == a.offset)
					return false;
			return true;
		});
		if (a)
			add("L_stacksize", uint32_t(a->offset), t.at(a->addr));
		return a != nullptr;
	};
	// lj_state_growstack inlined, or the last call with L and size.
	if (stacksize(*f))
		return;
	auto grow =
		std::find_if(f->trace.calls.rbegin(), f->trace.calls.rend(), [](const CallSite &c) {
			return c.args.size() > 1 && c.args[0].is(0, {}) &&
			       c.args[1].kind == TrackedValue::pointer && c.args[1].arg == 1 &&
			       c.args[1].path.empty() && c.target;
		});
	std::optional<Traced> callee;
	if (grow != f->trace.calls.rend())
		callee = follow_call(*f, *grow, 128);
	if (!callee || !stacksize(*callee))
		unshown("L_stacksize", "lua_checkstack grows no stack by its size");
}

// lua_newthread(L): lj_gc_check(L), then L1 = lj_state_new(L), which
// allocates sizeof(lua_State) (GG_State's g follows the main one) and
// copies L->glref and L->env into it; then incr_top(L) checks
// L->maxstack (lj_api.c, lj_state.c).
void Deriver::newthread()
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
	unsigned result = TrackedValue::call_result + unsigned(alloc - s->trace.calls.data());
	std::optional<int64_t> env;
	if (const MemoryAccess *a = first_access(*s, [&](const MemoryAccess &a) {
		    return a.store && a.object.is(result, {}) && a.value.path.size() == 1 &&
			   a.value.is(0, {a.offset}) && glref_ && a.offset != *glref_;
	    })) {
		add("L_env", uint32_t(a->offset), s->at(a->addr));
		env = a->offset;
	}
	if (!env)
		problem("L_env", "lj_state_new copies no field of L but glref");
	// setthreadV(L, L->top, L1) and incr_top(L) after it: the reference
	// of L read after L->top (or with it, in a pair) besides these.
	// luajit2's lj_state_new copies L->exdata and exdata2 before it, 16
	// bytes at once.
	const auto *base = out_.field("L_base"), *top = out_.field("L_top");
	if (!base || !top || !glref_ || !env)
		return problem("L_maxstack", "lua_newthread's other fields are unknown");
	const MemoryAccess *top_read = first_access(*f, [&](const MemoryAccess &a) {
		return !a.store && a.object.is(0, {}) && a.addr > state_new->addr &&
		       a.offset == top->value;
	});
	auto maxstack = [&](const MemoryAccess &a) {
		return !a.store && a.object.is(0, {}) && a.addr >= top_read->addr &&
		       a.width == ptrsize_ && a.offset != base->value && a.offset != top->value &&
		       a.offset != *glref_ && a.offset != *env;
	};
	if (const MemoryAccess *a = top_read ? first_access(*f, maxstack) : nullptr)
		return add("L_maxstack", uint32_t(a->offset), f->at(a->addr));
	problem("L_maxstack", "lua_newthread does not show it");
}

} // namespace ljcore
