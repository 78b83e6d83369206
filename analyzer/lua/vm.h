// One LuaJIT VM in a target's memory: the memory, the layout its build
// uses and its global_State. Every read of a LuaJIT object starts here, as
// every object in LuaJIT is reached from G(L) (lj_obj.h).
#pragma once

#include <cstdint>
#include <string>

#include "analyzer/lua/limits.h"
#include "luajit/layout.h"
#include "readers/memory.h"

namespace ljcore {

// One field of an object: its value, or where and why it could not be read.
template <typename T> using Read = std::expected<T, ReadMiss>;

// A GCRef or MRef under a layout, before there is a VM to read it through
// (the locator follows L->glref to find g).
inline std::expected<uint64_t, ReadMiss> read_ref(const Memory &mem, const lj_layout &layout,
						  uint64_t addr)
{
	if (layout.ptrsize == 8)
		return mem.read_value<uint64_t>(addr);
	auto v = mem.read_value<uint32_t>(addr);
	if (!v)
		return std::unexpected(v.error());
	return uint64_t(*v);
}

class Vm {
public:
	// g is the global_State, or a candidate for it while the locator
	// decides whether it is one.
	Vm(const Memory &mem, const lj_layout &layout, uint64_t g)
	    : mem_(mem), layout_(layout), g_(g)
	{
	}

	const Memory &memory() const { return mem_; }
	const lj_layout &layout() const { return layout_; }
	uint64_t g() const { return g_; }

	template <typename T> std::expected<T, ReadMiss> value(uint64_t addr) const
	{
		return mem_.read_value<T>(addr);
	}

	// A GCRef or MRef: 64 or 32 bits depending on the build.
	std::expected<uint64_t, ReadMiss> ref(uint64_t addr) const
	{
		return read_ref(mem_, layout_, addr);
	}

	// The internal type tag of a GC object (~LJ_T*).
	std::expected<uint8_t, ReadMiss> gct(uint64_t obj) const
	{
		return mem_.read_value<uint8_t>(obj + LJ_GCT_OFFSET(&layout_));
	}

	// GCHeader.nextgc: the next object on the list obj is on.
	Read<uint64_t> nextgc(uint64_t obj) const { return ref(obj); }

	// GCstr.len: how many characters the string has.
	Read<uint32_t> str_len(uint64_t gcstr) const
	{
		return mem_.read_value<uint32_t>(gcstr + layout_.str_len);
	}

	// The characters of a GCstr, at most max bytes of them.
	std::expected<std::string, ReadMiss> str(uint64_t gcstr, uint32_t max = 4096) const
	{
		auto len = str_len(gcstr);
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
	uint64_t g_;
};

} // namespace ljcore
