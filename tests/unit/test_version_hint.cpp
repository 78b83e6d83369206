// The version string LuaJIT compiles in (LUAJIT_VERSION) as a hint at the
// layout: what it says, where it is found in memory, which built-in
// tables it names first. Its bytes come from a core: anything goes.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "analyzer/locate/builtin_layouts.h"
#include "analyzer/locate/layout_versions.h"
#include "analyzer/locate/version_hint.h"
#include "analyzer/locate/version_string.h"

using namespace ljcore;
using namespace std::literals;

namespace {

// Bytes at a fixed address with one unreadable page in the middle.
class HoleyMemory final : public Memory {
public:
	HoleyMemory(uint64_t base, std::string bytes, uint64_t hole)
	    : base_(base), bytes_(std::move(bytes)), hole_(hole)
	{
	}

	std::expected<void, ReadMiss> read(uint64_t addr, std::span<std::byte> out) const override
	{
		if (addr < base_ || addr - base_ > bytes_.size() ||
		    bytes_.size() - (addr - base_) < out.size())
			return std::unexpected(ReadMiss{addr, "outside the test buffer"});
		if (addr < hole_ + 4096 && addr + out.size() > hole_)
			return std::unexpected(ReadMiss{std::max(addr, hole_), "not dumped"});
		std::memcpy(out.data(), bytes_.data() + (addr - base_), out.size());
		return {};
	}

private:
	uint64_t base_;
	std::string bytes_;
	uint64_t hole_;
};

std::vector<std::string> names(const std::vector<const lj_layout *> &layouts)
{
	std::vector<std::string> out;
	for (auto *ly : layouts)
		out.push_back(ly->name);
	return out;
}

LuaJITVersion parsed(std::string_view bytes)
{
	auto v = parse_luajit_version(bytes);
	REQUIRE(v.has_value());
	return *v;
}

} // namespace

TEST_CASE("version strings: rolling, beta3, ROLLING, other, and not one")
{
	auto rolling = parsed("LuaJIT 2.1.1744317938\0"sv);
	CHECK(rolling.kind == LuaJITVersion::Kind::rolling);
	CHECK(rolling.timestamp == 1744317938);
	CHECK(rolling.text == "LuaJIT 2.1.1744317938");
	// As luajit.c's banner has it: the version ends at the space.
	auto beta3 = parsed("LuaJIT 2.1.0-beta3 -- Copyright (C) 2005-2022 Mike Pall.");
	CHECK(beta3.kind == LuaJITVersion::Kind::beta3);
	CHECK(beta3.text == "LuaJIT 2.1.0-beta3");
	CHECK(parsed("LuaJIT 2.1.ROLLING\0"sv).kind == LuaJITVersion::Kind::rolling_unknown);
	CHECK(parsed("LuaJIT 2.0.5\0"sv).kind == LuaJITVersion::Kind::other);
	// Digits that are not all of the rest, or no number at all.
	CHECK(parsed("LuaJIT 2.1.17x\0"sv).kind == LuaJITVersion::Kind::other);
	CHECK(parsed("LuaJIT 2.1.99999999999999999999999\0"sv).kind == LuaJITVersion::Kind::other);
	CHECK_FALSE(parse_luajit_version("LuaJIT 2.1.17"));  // cut short: no end
	CHECK_FALSE(parse_luajit_version("LuaJIT (c)\0"sv)); // no version number
	CHECK_FALSE(parse_luajit_version("LuaJ"));
	CHECK_FALSE(parse_luajit_version(""));
	CHECK_FALSE(parse_luajit_version("LuaJIT 2" + std::string(100, '1') + '\0'));
}

TEST_CASE("the version string is found across pieces and around a hole")
{
	constexpr uint64_t base = 0x400000;
	std::string bytes(200 << 10, 'x');
	// In the unreadable page: never seen. Across the 64 KiB piece
	// boundary: seen whole, not as the cut "LuaJIT 2.1.17".
	const std::string hidden = "LuaJIT 2.1.0-beta3"s + '\0';
	const std::string real = "LuaJIT 2.1.1744317938"s + '\0';
	bytes.replace(0x1000 + 10, hidden.size(), hidden);
	const uint64_t at = (64 << 10) - 13;
	bytes.replace(at, real.size(), real);
	HoleyMemory mem(base, bytes, base + 0x1000);
	auto found = find_luajit_version(mem, base, base + bytes.size());
	REQUIRE(found.has_value());
	CHECK(found->version.text == "LuaJIT 2.1.1744317938");
	CHECK(found->addr == base + at);
	// Bounded: a limit short of it, or a module with none, finds nothing.
	CHECK_FALSE(find_luajit_version(mem, base, base + bytes.size(), 32 << 10));
	HoleyMemory none(base, std::string(100 << 10, '\0'), base + 0x3000);
	CHECK_FALSE(find_luajit_version(none, base, base + (100 << 10)));
}

TEST_CASE("a version string puts the tables of its epoch first, and only orders")
{
	std::vector<const lj_layout *> all = builtin_layouts(Arch::x86_64);
	// 2025-04-11 lies in the epoch of f5affaa6 (2024-04-19) up to
	// 68354f44 (2025-11-06).
	auto v2025 = parsed("LuaJIT 2.1.1744317938\0"sv);
	auto named = names(layouts_for_version(all, v2025));
	CHECK(std::ranges::find(named, "upstream 20240419 gc64 x64") != named.end());
	CHECK(std::ranges::find(named, "upstream 20260720 gc64 x64") == named.end());
	auto ordered = all;
	order_by_version(ordered, v2025);
	CHECK(ordered.size() == all.size());
	CHECK(std::ranges::is_permutation(ordered, all));
	CHECK(names({ordered.begin(), ordered.begin() + long(named.size())}) == named);

	// The head's commit time names the newest epoch.
	auto head = names(layouts_for_version(all, parsed("LuaJIT 2.1.1787165859\0"sv)));
	CHECK(std::ranges::find(head, "upstream 20260720 gc64 x64") != head.end());
	CHECK(std::ranges::find(head, "upstream 2026 gc32 x64") != head.end());

	// OpenResty's luajit2 v2.1-20240314 says the time of its tagged
	// commit: its own tables, and upstream's of that time.
	auto luajit2 = names(layouts_for_version(all, parsed("LuaJIT 2.1.1710398010\0"sv)));
	CHECK(std::ranges::find(luajit2, "OpenResty luajit2 2.1, GC64, x86_64") != luajit2.end());
	CHECK(std::ranges::find(luajit2, "upstream LuaJIT 2.1, GC64, x86_64") != luajit2.end());
	auto later = names(layouts_for_version(all, parsed("LuaJIT 2.1.1713483199\0"sv)));
	CHECK(std::ranges::find(later, "OpenResty luajit2 2.1, GC64, x86_64") == later.end());

	// beta3 is the string of the Debian snapshots, luajit2 and Tarantool.
	auto beta3 = names(layouts_for_version(all, parsed("LuaJIT 2.1.0-beta3\0"sv)));
	CHECK(std::ranges::find(beta3, "upstream LuaJIT 2.1, GC64, x86_64") != beta3.end());
	CHECK(std::ranges::find(beta3, "tarantool gc32 x64") != beta3.end());
	CHECK(std::ranges::find(beta3, "upstream 20240419 gc64 x64") == beta3.end());

	// A string no table carries leaves the order as it was.
	for (auto text : {"LuaJIT 2.1.ROLLING\0"sv, "LuaJIT 2.1.1000000000\0"sv}) {
		auto v = parsed(text);
		CHECK(layouts_for_version(all, v).empty());
		auto same = all;
		order_by_version(same, v);
		CHECK(same == all);
	}
}

TEST_CASE("a layout the version string did not name is noted, not refused")
{
	VersionString hint{"LuaJIT 2.1.0-beta3", 0x1000, "luajit", {"tarantool gc32 x64"}};
	VmResult vm;
	vm.global_state = 0x40000378;
	vm.layout = "tarantool gc32 x64";
	Diagnostics diag;
	compare_with_hint(hint, vm, diag);
	CHECK(vm.layout_matches_version == true);
	CHECK(diag.evidence().empty());

	vm.layout = "upstream 20260720 gc64 x64";
	compare_with_hint(hint, vm, diag);
	CHECK(vm.layout_matches_version == false);
	REQUIRE(diag.evidence().size() == 1);
	CHECK(diag.evidence()[0] == "VM 0x40000378: layout upstream 20260720 gc64 x64 fits memory, "
			     "though the version string LuaJIT 2.1.0-beta3 suggested tarantool "
			     "gc32 x64; memory decides, the string is only a hint");

	// A string that names no table has nothing to agree with.
	VmResult other;
	other.layout = "tarantool gc32 x64";
	hint.layouts.clear();
	compare_with_hint(hint, other, diag);
	compare_with_hint(std::nullopt, other, diag);
	CHECK_FALSE(other.layout_matches_version.has_value());
	CHECK(diag.evidence().size() == 1);
}
