// The deriver's value tracker on instructions as LLVM prints them: what an
// indexed load reads is followed apart from the fields of its base, so that
// the rules can tell uvptr[idx] from a field at the same displacement.
#include <doctest/doctest.h>

#include "analyzer/derive/value_tracker.h"

using namespace ljcore;

namespace {

// The lines, as if LLVM had printed them, 4 bytes each: all decoded
// already, so the disassembler is never asked for more.
FunctionTrace track(std::initializer_list<const char *> lines, Arch arch = Arch::x86_64,
		    bool stack = false)
{
	LazyOperations::Decoded decoded;
	uint64_t addr = 0x1000;
	for (const char *text : lines) {
		MachineInsn insn;
		insn.addr = addr, insn.size = 4, insn.text = text;
		decoded.ops.push_back(operation_of(insn, arch));
		addr += 4;
	}
	decoded.bytes = 4 * lines.size();
	const std::vector<uint8_t> code(decoded.bytes);
	auto dis = Disassembler::create(arch);
	REQUIRE(dis);
	LazyOperations ops(**dis, code, 0x1000, arch, std::move(decoded));
	return track_values(ops, arch, stack);
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
		Arch::x86_64, true);
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
		Arch::aarch64, true);
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
