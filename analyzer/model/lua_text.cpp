#include "analyzer/model/lua_text.h"

#include <bit>
#include <charconv>
#include <iterator>

namespace ljcore {

std::string luajit_pointer(uint64_t p)
{
	if (p == 0)
		return "NULL";
	// 64-bit pointers are shortened to the digits the high half needs.
	uint32_t hi = uint32_t(p >> 32);
	unsigned n = 2 + 2 * 4 + (hi ? 2 + 2 * ((31 - std::countl_zero(hi)) >> 3) : 0);
	std::string out(n, '0');
	out[1] = 'x';
	for (unsigned i = n - 1; i >= 2; i--, p >>= 4)
		out[i] = "0123456789abcdef"[p & 15];
	return out;
}

std::string hex(uint64_t v)
{
	char buf[18] = "0x";
	return std::string(buf, std::to_chars(buf + 2, std::end(buf), v, 16).ptr);
}

} // namespace ljcore
