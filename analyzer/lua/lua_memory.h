// Typed reads of LuaJIT objects in a target's memory, through one layout.
#pragma once

#include <cstdint>
#include <string>

#include "analyzer/lua/limits.h"
#include "luajit/layout.h"
#include "readers/memory.h"

namespace ljcore {

class LuaMemory {
public:
	LuaMemory(const Memory &mem, const lj_layout &layout) : mem_(mem), layout_(layout) {}

	const Memory &memory() const { return mem_; }
	const lj_layout &layout() const { return layout_; }

	template <typename T> std::expected<T, ReadMiss> value(uint64_t addr) const
	{
		return mem_.read_value<T>(addr);
	}

	// A GCRef or MRef: 64 or 32 bits depending on the build.
	std::expected<uint64_t, ReadMiss> ref(uint64_t addr) const
	{
		if (layout_.ptrsize == 8)
			return mem_.read_value<uint64_t>(addr);
		auto v = mem_.read_value<uint32_t>(addr);
		if (!v)
			return std::unexpected(v.error());
		return uint64_t(*v);
	}

	// The internal type tag of a GC object (~LJ_T*).
	std::expected<uint8_t, ReadMiss> gct(uint64_t obj) const
	{
		return mem_.read_value<uint8_t>(obj + LJ_GCT_OFFSET(&layout_));
	}

	// The characters of a GCstr, at most max bytes of them.
	std::expected<std::string, ReadMiss> str(uint64_t gcstr, uint32_t max = 4096) const
	{
		auto len = mem_.read_value<uint32_t>(gcstr + layout_.str_len);
		if (!len)
			return std::unexpected(len.error());
		// Reading only max bytes keeps us bounded, but the prefix of a
		// string no VM could make would pass for its text.
		if (*len > lj_limit::str_len)
			return std::unexpected(ReadMiss{gcstr + layout_.str_len,
							"GCstr claims " + std::to_string(*len) +
								" bytes, more than LuaJIT allows"});
		std::string s(std::min(*len, max), '\0');
		auto r = mem_.read(gcstr + layout_.str_size, std::as_writable_bytes(std::span(s)));
		if (!r)
			return std::unexpected(r.error());
		return s;
	}

private:
	const Memory &mem_;
	const lj_layout &layout_;
};

} // namespace ljcore
