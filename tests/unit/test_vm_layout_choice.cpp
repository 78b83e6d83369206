// Which built-in layout a global_State gets when no DWARF says: a build
// with the JIT puts jit_State between g and the dispatch table, one without
// does not, and only the dispatch table tells them apart.
#include <doctest/doctest.h>

#include <cstring>
#include <string_view>
#include <vector>

#include "analyzer/locate/builtin_layouts.h"
#include "analyzer/locate/dwarf_layout.h"
#include "analyzer/locate/vm_locator.h"

using namespace ljcore;

namespace {

// One stretch of memory at a fixed address; reads outside it miss.
class BufferMemory final : public Memory {
public:
	BufferMemory(uint64_t base, size_t size) : base_(base), bytes_(size) {}

	std::expected<void, ReadMiss> read(uint64_t addr, std::span<std::byte> out) const override
	{
		if (addr < base_ || addr - base_ > bytes_.size() ||
		    bytes_.size() - (addr - base_) < out.size())
			return std::unexpected(ReadMiss{addr, "outside the test buffer"});
		std::memcpy(out.data(), bytes_.data() + (addr - base_), out.size());
		return {};
	}
	template <typename T> void put(uint64_t addr, T value)
	{
		std::memcpy(bytes_.data() + (addr - base_), &value, sizeof value);
	}

private:
	uint64_t base_;
	std::vector<std::byte> bytes_;
};

const lj_layout &layout_named(std::string_view name)
{
	for (const lj_layout *ly : builtin_layouts(Arch::x86_64))
		if (name == ly->name)
			return *ly;
	FAIL("no built-in layout " << name);
	throw;
}

constexpr uint64_t gg = 0x7f0000001000;   // GG_State
constexpr uint64_t code = 0x555555560000; // the VM's handlers

// A GG_State as lj_state_new leaves it, laid out as ly says, with its
// dispatch table of 64 handlers filled unless told otherwise. The word
// before it, where an allocator keeps the chunk's size, is zero.
BufferMemory vm_memory(const lj_layout &ly, bool dispatch)
{
	BufferMemory mem(gg - 16, 64 << 10);
	const uint64_t g = gg + ly.gg_g;
	mem.put<uint64_t>(g + ly.g_mainthref, gg);
	mem.put<uint64_t>(gg + ly.L_glref, g);
	mem.put<uint8_t>(gg + LJ_GCT_OFFSET(&ly), LJ_TTHREAD);
	mem.put<uint8_t>(g + ly.g_strempty + LJ_GCT_OFFSET(&ly), LJ_TSTR);
	for (uint64_t i = 0; dispatch && i < 64; i++)
		mem.put<uint64_t>(gg + ly.gg_dispatch + 8 * i, code + 0x80 * i);
	return mem;
}

} // namespace

TEST_CASE("a build without the JIT gets its own layout, not the JIT's")
{
	const lj_layout &jit = layout_named("upstream LuaJIT 2.1, GC64, x86_64");
	const lj_layout &nojit = layout_named("upstream LuaJIT 2.1, GC64, JIT disabled, x86_64");
	REQUIRE(jit.gg_g == nojit.gg_g);
	REQUIRE(jit.gg_dispatch != nojit.gg_dispatch);
	BufferMemory mem = vm_memory(nojit, true);
	const uint64_t g = gg + nojit.gg_g;

	auto as_jit = check_global_state(Vm(mem, jit, g), "test");
	auto as_nojit = check_global_state(Vm(mem, nojit, g), "test");
	REQUIRE(as_jit.has_value());
	REQUIRE(as_nojit.has_value());
	CHECK_FALSE(as_jit->dispatch_ok);
	CHECK(as_nojit->dispatch_ok);

	// Whichever layout is tried first, the one that fits is kept.
	std::vector<VmCandidate> found;
	CHECK(add_candidate(found, *as_jit));
	CHECK(add_candidate(found, *as_nojit));
	CHECK_FALSE(add_candidate(found, *as_jit));
	REQUIRE(found.size() == 1);
	CHECK(found[0].layout == &nojit);
}

TEST_CASE("a VM whose dispatch table was overwritten is still found")
{
	const lj_layout &jit = layout_named("upstream LuaJIT 2.1, GC64, x86_64");
	BufferMemory mem = vm_memory(jit, false);
	auto c = check_global_state(Vm(mem, jit, gg + jit.gg_g), "test");
	REQUIRE(c.has_value());
	CHECK_FALSE(c->dispatch_ok);
	std::vector<VmCandidate> found;
	CHECK(add_candidate(found, *c));
	CHECK(found.size() == 1);
}

TEST_CASE("tables that differ only in sizeof(GG_State) are told apart by its allocation")
{
	const lj_layout &older = layout_named("upstream 20251110 gc64 x64");
	const lj_layout &newer = layout_named("upstream 20260720 gc64 x64");
	REQUIRE(layout_difference_count(older, newer) == 1);
	REQUIRE(older.gg_size != newer.gg_size);
	const uint64_t g = gg + older.gg_g;
	auto candidates = [&](const BufferMemory &mem) {
		auto a = check_global_state(Vm(mem, older, g), "test");
		auto b = check_global_state(Vm(mem, newer, g), "test");
		REQUIRE(a.has_value());
		REQUIRE(b.has_value());
		return std::pair{*a, *b};
	};

	// lj_alloc.c's chunk for the older GG_State: its size plus the
	// header word, rounded up to 8, with the in-use flags set.
	BufferMemory mem = vm_memory(older, true);
	mem.put<uint64_t>(gg - 8, ((older.gg_size + 8 + 7) & ~uint64_t(7)) | 3);
	mem.put<uint64_t>(g + older.g_cur_L, gg); // the main thread runs
	auto [as_older, as_newer] = candidates(mem);
	using enum VmCandidate::ChunkFit;
	CHECK(as_older.gg_chunk == fits);
	CHECK(as_newer.gg_chunk == differs);
	for (bool older_first : {true, false}) {
		std::vector<VmCandidate> found;
		add_candidate(found, older_first ? as_older : as_newer);
		// A chunk that does not fit leaves the search open.
		CHECK(settled(found, g) == older_first);
		add_candidate(found, older_first ? as_newer : as_older);
		REQUIRE(found.size() == 1);
		CHECK(found[0].layout == &older);
		CHECK(settled(found, g));
	}

	// No header (another allocator, or a snapshot that did not keep the
	// word): neither is preferred, and the first that fits the rest settles
	// the search, as no other can do better.
	BufferMemory bare = vm_memory(older, true);
	bare.put<uint64_t>(g + older.g_cur_L, gg);
	auto [bare_older, bare_newer] = candidates(bare);
	CHECK(bare_older.gg_chunk == unknown);
	CHECK(bare_newer.gg_chunk == unknown);
	std::vector<VmCandidate> found;
	add_candidate(found, bare_newer);
	CHECK(settled(found, g));
	CHECK_FALSE(add_candidate(found, bare_older));
	CHECK(found[0].layout == &newer);

	// A word that is no chunk header of a GG_State (a pointer, say) is
	// not asked either.
	bare.put<uint64_t>(gg - 8, gg + 0x40);
	auto [ptr_older, ptr_newer] = candidates(bare);
	CHECK(ptr_older.gg_chunk == unknown);
	CHECK(ptr_newer.gg_chunk == unknown);
}
