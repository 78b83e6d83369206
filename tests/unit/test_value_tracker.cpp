// The deriver's value tracker on instructions as LLVM prints them: what an
// indexed load reads is followed apart from the fields of its base, so that
// the rules can tell uvptr[idx] from a field at the same displacement.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <string_view>

#include "analyzer/derive/deriver.h"
#include "analyzer/derive/value_tracker.h"

using namespace ljcore;

namespace {

// The lines, as if LLVM had printed them, 4 bytes each: all decoded
// already, so the disassembler is never asked for more.
FunctionTrace track(std::initializer_list<const char *> lines, Arch arch = Arch::x86_64,
		    TrackOptions options = {})
{
	LazyOperations::Decoded decoded;
	uint64_t addr = 0x1000;
	for (const char *text : lines) {
		MachineInsn insn;
		insn.addr = addr, insn.size = 4, insn.text = text;
		// "jmp 0x1010": a direct branch, its target as LLVM gives it.
		std::string_view t = text;
		if (size_t at = t.find(" 0x"); (t[0] == 'j' || t[0] == 'b') && at != t.npos)
			insn.branch_to = std::strtoull(text + at + 1, nullptr, 16);
		decoded.ops.push_back(operation_of(insn, arch));
		addr += 4;
	}
	decoded.bytes = 4 * lines.size();
	const std::vector<uint8_t> code(decoded.bytes);
	auto dis = Disassembler::create(arch);
	REQUIRE(dis);
	LazyOperations ops(**dis, code, 0x1000, arch, std::move(decoded));
	return track_values(ops, arch, options);
}

} // namespace

TEST_CASE("an indexed load is recorded apart and what it read is followed")
{
	// uv = fn->l.uvptr[idx]; v = uv->v (lj_debug.c lj_debug_uvnamev)
	FunctionTrace t = track({
		"mov eax, esi",
		"mov rax, qword ptr [rdi + 8*rax + 0x28]",
		"mov rdx, qword ptr [rax + 0x20]",
		"ret",
	});
	REQUIRE(t.indexed.size() == 1);
	const IndexedAccess &uvptr = t.indexed[0];
	CHECK(uvptr.object.is(0, {}));
	CHECK(uvptr.offset == 0x28);
	CHECK(uvptr.width == 8);
	CHECK(!uvptr.store);
	CHECK(uvptr.index.is(1, {}));
	// Not an access of fn at 0x28: a rule reading fn's fields sees none.
	REQUIRE(t.accesses.size() == 1);
	const MemoryAccess &v = t.accesses[0];
	CHECK(v.object.is(TrackedValue::element, {}));
	CHECK(v.offset == 0x20);
	CHECK(v.value.is(TrackedValue::element, {0x20}));
}

TEST_CASE("an indexed store is recorded and reads nothing")
{
	FunctionTrace t = track({
		"mov qword ptr [rdi + 8*rsi + 0x28], rdx",
		"ret",
	});
	REQUIRE(t.indexed.size() == 1);
	CHECK(t.indexed[0].store);
	CHECK(t.indexed[0].object.is(0, {}));
	CHECK(t.accesses.empty());
}

TEST_CASE("arm64: a load through a pointer plus a scaled index is an indexed load")
{
	// The same on arm64, the index added first (lj_debug_uvnamev).
	FunctionTrace t = track(
		{
			"add x4, x0, w1, uxtw #3",
			"ldr x4, [x4, #0x28]",
			"ldr x5, [x4, #0x20]",
			"ret",
		},
		Arch::aarch64);
	REQUIRE(t.indexed.size() == 1);
	CHECK(t.indexed[0].object.is(0, {}));
	CHECK(t.indexed[0].offset == 0x28);
	CHECK(t.indexed[0].index.is(1, {}));
	REQUIRE(t.accesses.size() == 1);
	CHECK(t.accesses[0].object.is(TrackedValue::element, {}));
	CHECK(t.accesses[0].offset == 0x20);
}

TEST_CASE("the stack pointer is followed, when asked, through pushes and subtractions")
{
	// lj_vm_cpcall's C frame (vm_x64.dasc): saveregs, then L into the
	// frame's L slot and the frame into L->cframe.
	FunctionTrace t = track(
		{
			"push rbp",
			"push rbx",
			"sub rsp, 0x28",
			"mov rbp, rdi",
			"mov qword ptr [rsp + 0x10], rdi",
			"mov qword ptr [rbp + 0x50], rsp",
			"pop rbx",
			"ret",
		},
		Arch::x86_64, {.stack = true});
	REQUIRE(t.accesses.size() == 2);
	const MemoryAccess &slot = t.accesses[0], &link = t.accesses[1];
	CHECK(slot.store);
	CHECK(slot.object.is(TrackedValue::stack, {}));
	CHECK(slot.offset == 0x10 - 0x28 - 16);
	CHECK(slot.value.is(0, {}));
	CHECK(link.object.is(0, {}));
	CHECK(link.value.kind == TrackedValue::pointer);
	CHECK(link.value.arg == TrackedValue::stack);
	CHECK(link.value.k == -0x28 - 16);
}

TEST_CASE("arm64: the stack pointer is followed, when asked, through subtractions and moves")
{
	FunctionTrace t = track(
		{
			"sub sp, sp, #0xd0",
			"str x0, [sp, #0x10]",
			"mov x16, sp",
			"str x16, [x0, #0x50]",
			"ret",
		},
		Arch::aarch64, {.stack = true});
	REQUIRE(t.accesses.size() == 2);
	CHECK(t.accesses[0].object.is(TrackedValue::stack, {}));
	CHECK(t.accesses[0].offset == 0x10 - 0xd0);
	CHECK(t.accesses[1].value.arg == TrackedValue::stack);
	CHECK(t.accesses[1].value.k == -0xd0);
}

TEST_CASE("the stack pointer is not followed by default")
{
	FunctionTrace t = track({
		"push rbp",
		"mov qword ptr [rsp + 0x10], rdi",
		"ret",
	});
	CHECK(t.accesses.empty());
}

TEST_CASE("an AArch64 load with writeback moves its base register")
{
	// close_state's lj_buf_free(g, &g->tmpbuf) on arm64: a post-indexed
	// load leaves &g->tmpbuf in x21, whose e and b the pair load reads;
	// a pre-indexed store moves x2 before it writes.
	FunctionTrace t = track(
		{
			"ldr x19, [x0, #0x10]",
			"mov x21, x19",
			"ldr x4, [x21], #0xc8",
			"ldp x2, x1, [x21, #0x8]",
			"str x1, [x2, #0x10]!",
			"str x1, [x2]",
			"ret",
		},
		Arch::aarch64);
	REQUIRE(t.accesses.size() == 6);
	CHECK(t.accesses[1].object.is(0, {0x10}));
	CHECK(t.accesses[1].offset == 0);
	// e and b of the SBuf at g + 0xc8 (tmpbuf), not g + 8 and g + 0x10.
	CHECK(t.accesses[2].object.is(0, {0x10}));
	CHECK(t.accesses[2].offset == 0xc8 + 0x8);
	CHECK(t.accesses[3].offset == 0xc8 + 0x10);
	// x2 was e: the pre-indexed store writes at e + 0x10, the next at
	// the same address.
	CHECK(t.accesses[4].offset == 0x10);
	CHECK(t.accesses[5].offset == 0x10);
	CHECK(t.accesses[5].object.is(0, {0x10, 0xd0}));
}

TEST_CASE("a call through a table of functions addressed from rip")
{
	// gc_sweep: gc_freefunc[o->gch.gct - ~LJ_TSTR](g, o) (lj_gc.c)
	FunctionTrace t = track({
		"lea r14, [rip + 0x100]",
		"movzx eax, byte ptr [rsi + 0x9]",
		"sub eax, 0x4",
		"call qword ptr [r14 + 8*rax]",
		"ret",
	});
	REQUIRE(t.calls.size() == 1);
	const CallSite &c = t.calls[0];
	CHECK(c.target == 0);
	CHECK(c.entry.table == 0x1004 + 0x100); // rip: the next instruction
	CHECK(c.entry.scale == 8);
	CHECK(c.entry.index.path == std::vector<int64_t>{0x9});
	CHECK(c.entry.index.k == -4);
	CHECK(c.callee.kind == TrackedValue::unknown);
}

TEST_CASE("a count loaded and scaled is a size; an indirect jump is a tail call")
{
	// lj_func_free: lj_mem_free(g, fn, sizeLfunc(fn->l.nupvalues)) as
	// g->allocf(g->allocd, fn, size, 0) (lj_func.c, lj_gc.h)
	FunctionTrace t = track({
		"movzx eax, byte ptr [rsi + 0xb]",
		"lea edx, [8*rax + 0x28]",
		"mov r8, qword ptr [rdi + 0x8]",
		"xor ecx, ecx",
		"mov rax, qword ptr [rdi]",
		"mov rdi, r8",
		"jmp rax",
	});
	REQUIRE(t.calls.size() == 1);
	const CallSite &c = t.calls[0];
	CHECK(c.callee.is(0, {0}));
	CHECK(c.args[0].is(0, {8}));
	CHECK(c.args[1].is(1, {}));
	CHECK(c.args[2].path == std::vector<int64_t>{0xb});
	CHECK(c.args[2].scale == 8);
	CHECK(c.args[2].k == 0x28);
	CHECK(!c.args[2].member_of(1, {})); // a size, not the member itself
	CHECK(c.args[3].kind == TrackedValue::constant);
}

TEST_CASE("a count plus one times three, shifted, is scaled as a whole; nothing loads through it")
{
	// lj_tab_free: lj_mem_freevec(g, node, t->hmask + 1, Node) (lj_tab.c)
	FunctionTrace t = track({
		"mov eax, dword ptr [rsi + 0x34]",
		"add eax, 0x1",
		"lea rdx, [rax + 2*rax]",
		"shl rdx, 0x3",
		"mov rcx, qword ptr [rdx + 0x8]",
		"call qword ptr [rdi]",
		"ret",
	});
	REQUIRE(t.calls.size() == 1);
	const TrackedValue &size = t.calls[0].args[2];
	CHECK(size.path == std::vector<int64_t>{0x34});
	CHECK(size.scale == 24);
	CHECK(size.k == 24);
	CHECK(std::none_of(t.accesses.begin(), t.accesses.end(),
			   [](const MemoryAccess &a) { return a.offset == 0x8; }));
}

TEST_CASE("a jump back to a shared tail the path has not run is followed")
{
	// lj_func_free: both sizes end in one free (gcc puts the second
	// before it and jumps back).
	FunctionTrace t = track(
		{
			"movzx eax, byte ptr [rsi + 0xb]", // 0x1000
			"cmp byte ptr [rsi + 0xa], 0x0",   // 0x1004
			"jne 0x1020",                      // 0x1008
			"lea edx, [8*rax + 0x28]",         // 0x100c
			"xor ecx, ecx",                    // 0x1010
			"mov rax, qword ptr [rdi]",        // 0x1014
			"jmp rax",                         // 0x1018
			"nop",                             // 0x101c
			"lea edx, [8*rax + 0x30]",         // 0x1020
			"jmp 0x1010",                      // 0x1024
		},
		Arch::x86_64, {.every_way = true});
	REQUIRE(t.calls.size() == 2);
	CHECK(t.calls[0].args[2].k == 0x28);
	CHECK(t.calls[1].args[2].k == 0x30);
	CHECK(t.calls[1].args[3].kind == TrackedValue::constant);
	CHECK(t.calls[1].callee.is(0, {0}));
}

TEST_CASE("a loop's jump back ends the path")
{
	FunctionTrace t = track(
		{
			"mov rax, qword ptr [rdi + 0x10]", // 0x1000
			"mov rdx, qword ptr [rsi + 0x8]",  // 0x1004
			"jmp 0x1004",                      // 0x1008
		},
		Arch::x86_64, {.every_way = true});
	CHECK(t.accesses.size() == 2);
	CHECK(t.instructions == 3);
}

TEST_CASE("arm64: an entry loaded from a table in the file, then called")
{
	// gc_sweep on arm64: the table's page and offset, then the entry.
	FunctionTrace t = track(
		{
			"adrp x23, 0x9e000",
			"add x23, x23, #0x790",
			"ldrb w2, [x1, #9]",
			"sub w2, w2, #0x4",
			"ldr x2, [x23, x2, lsl #3]",
			"blr x2",
			"ret",
		},
		Arch::aarch64);
	REQUIRE(t.calls.size() == 1);
	CHECK(t.calls[0].entry.table == 0x9e790);
	CHECK(t.calls[0].entry.scale == 8);
	CHECK(t.calls[0].entry.index.path == std::vector<int64_t>{9});
	CHECK(t.calls[0].entry.index.k == -4);
}

TEST_CASE("arm64: a count times a constant is a size; br is a tail call")
{
	// lj_tab_free on arm64: (t->hmask + 1) * sizeof(Node)
	FunctionTrace t = track(
		{
			"ldr w2, [x1, #52]",
			"add w2, w2, #0x1",
			"mov w6, #0x18",
			"umull x2, w2, w6",
			"ldp x5, x0, [x0]",
			"mov x3, #0x0",
			"br x5",
		},
		Arch::aarch64);
	REQUIRE(t.calls.size() == 1);
	const CallSite &c = t.calls[0];
	CHECK(c.callee.is(0, {0}));
	CHECK(c.args[0].is(0, {8}));
	CHECK(c.args[2].path == std::vector<int64_t>{52});
	CHECK(c.args[2].scale == 24);
	CHECK(c.args[2].k == 24);
}

TEST_CASE("a jump back is not followed unless asked")
{
	FunctionTrace t = track({
		"jmp 0x1008",                      // 0x1000
		"mov rax, qword ptr [rdi + 0x10]", // 0x1004
		"jmp 0x1004",                      // 0x1008
	});
	CHECK(t.accesses.empty());
	CHECK(t.calls.empty()); // a jump within the function calls nothing
}

TEST_CASE("a pointer plus a count indexes the next load, on a branch's path too")
{
	// lj_cdata_free without GC64: ct = &cts->tab[cd->ctypeid] (16-byte
	// CTypes), then sizeof(GCcdata) + ct->size freed on a branch's path.
	FunctionTrace t = track(
		{
			"mov rdi, qword ptr [rdi + 0x128]", // 0x1000
			"movzx edx, word ptr [rsi + 0x6]",  // 0x1004
			"shl rdx, 0x4",                     // 0x1008
			"add rdx, rdi",                     // 0x100c
			"mov eax, dword ptr [rdx]",         // 0x1010
			"cmp eax, 0x5",                     // 0x1014
			"jbe 0x1020",                       // 0x1018
			"ret",                              // 0x101c
			"mov edx, dword ptr [rdx + 0x4]",   // 0x1020
			"add rdx, 0x8",                     // 0x1024
			"call qword ptr [rbx]",             // 0x1028
			"ret",                              // 0x102c
		},
		Arch::x86_64);
	REQUIRE(t.indexed.size() == 2);
	CHECK(t.indexed[0].object.is(0, {0x128}));
	CHECK(t.indexed[0].index.path == std::vector<int64_t>{6});
	CHECK(t.indexed[0].index.scale == 16);
	CHECK(t.indexed[1].offset == 4);
	REQUIRE(t.calls.size() == 1);
	const TrackedValue &size = t.calls[0].args[2];
	CHECK(size.arg == TrackedValue::element + 1);
	CHECK(size.k == 8);
}

TEST_CASE("arm64: a conditional select gives each value on a path of its own, when asked")
{
	// lj_func_free on arm64: sizeCfunc(n) or sizeLfunc(n), chosen by ffid.
	std::initializer_list<const char *> code = {
		"ldrb w2, [x1, #11]", "add x5, x2, #0x5", "add x2, x2, #0x6",
		"lsl w5, w5, #3",     "lsl w2, w2, #3",   "csel x2, x2, x5, ne",
		"ldp x6, x0, [x0]",   "mov x3, #0x0",     "br x6",
	};
	FunctionTrace t = track(code, Arch::aarch64, {.every_way = true});
	REQUIRE(t.calls.size() == 2);
	CHECK(t.calls[0].args[2].k == 48);
	CHECK(t.calls[1].args[2].k == 40);
	CHECK(t.calls[1].args[2].scale == 8);
	FunctionTrace plain = track(code, Arch::aarch64);
	REQUIRE(plain.calls.size() == 1);
	CHECK(plain.calls[0].args[2].kind == TrackedValue::unknown);
}

TEST_CASE("a load from beyond 32 bits of an object is not followed")
{
	// Hostile code: no member is 2 GB into an object.
	FunctionTrace t = track({
		"add rdi, 0x7fffff00",
		"mov rax, qword ptr [rdi + 0x200]",
		"mov rdx, qword ptr [rax + 0x10]",
		"ret",
	});
	REQUIRE(!t.accesses.empty());
	const MemoryAccess &far = t.accesses[0];
	CHECK(far.object.is(0, {}));
	CHECK(far.offset == 0x80000100);
	CHECK(far.value.kind == TrackedValue::unknown);
	// What it read is no pointer, so nothing is loaded through it, and
	// it is not taken for the object it was read from (L, for glref_from).
	CHECK(t.accesses.size() == 1);
	const Traced traced{FunctionCode{}, t, {}};
	CHECK(!traced.followed(far.value));
	// A rule's path with such an offset matches no tracked one.
	LoadPath beyond{0x80000100};
	CHECK(!(beyond == LoadPath{int64_t(int32_t(0x80000100))}));
	TrackedValue member;
	member.kind = TrackedValue::pointer;
	member.path = LoadPath{int64_t(int32_t(0x80000100)), 8};
	CHECK(!member.member_of(0, beyond));
	CHECK(member.member_of(0, LoadPath{int64_t(int32_t(0x80000100))}) == 8);
}
