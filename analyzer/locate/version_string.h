// The version string LuaJIT compiles into its module (LUAJIT_VERSION in
// luajit.h, which luajit.c prints for -v and lib_jit.c sets as
// jit.version): a hint at which layout epoch built the binary, never
// proof of it. The bytes come from the target, so they are bounded and
// may be anything.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "readers/memory.h"

namespace ljcore {

struct LuaJITVersion {
	// What the string says about its source:
	//   rolling: "LuaJIT 2.1.<commit time>" (upstream's rolling releases
	//            since 2023: src/Makefile puts the commit's Unix time,
	//            `git show -s --format=%ct`, from .relver into luajit.h);
	//   rolling_unknown: "LuaJIT 2.1.ROLLING", built where that time
	//            could not be found;
	//   beta3:   "LuaJIT 2.1.0-beta3", the fixed string of the 2017 tag,
	//            kept by Debian's snapshots, OpenResty's luajit2 (up to
	//            its 2023 releases) and Tarantool's fork;
	//   other:   anything else after "LuaJIT " (e.g. 2.0.5).
	enum class Kind { rolling, rolling_unknown, beta3, other };
	Kind kind = Kind::other;
	std::string text;       // "LuaJIT 2.1.1744317938"
	uint64_t timestamp = 0; // the commit time, for rolling only
};

// Reads "LuaJIT <version>" at the start of bytes: the version runs up to
// the first byte that is not a letter, digit, '.' or '-', which must be
// in bytes. Nothing when bytes do not hold that.
std::optional<LuaJITVersion> parse_luajit_version(std::string_view bytes);

struct FoundVersion {
	LuaJITVersion version;
	uint64_t addr = 0; // where it was read
};

// The first version string in [low, high) of mem, read in bounded pieces
// (what a core does not hold is skipped), over at most max_bytes of
// addresses.
std::optional<FoundVersion> find_luajit_version(const Memory &mem, uint64_t low, uint64_t high,
						uint64_t max_bytes = 64 << 20);

} // namespace ljcore
