#include "analyzer/gc/object_detail.h"

#include <cstdio>

namespace ljcore::gc {

namespace {

std::string printable_prefix(const std::string &s, size_t max)
{
	std::string out = "\"";
	for (size_t i = 0; i < s.size() && i < max; i++) {
		unsigned char c = s[i];
		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
			out += char(c);
		} else {
			char buf[8];
			snprintf(buf, sizeof buf, "\\x%02x", c);
			out += buf;
		}
	}
	out += s.size() > max ? "\"..." : "\"";
	return out;
}

} // namespace

std::string object_detail(const Vm &vm, const Ranked &r)
{
	const lj_layout &ly = vm.layout();
	switch (r.type) {
	case GcType::string: {
		auto len = vm.value<uint32_t>(r.addr + ly.str_len);
		auto s = vm.str(r.addr, 40);
		if (!len || !s)
			return "unreadable";
		return "len " + std::to_string(*len) + " " + printable_prefix(*s, 32);
	}
	case GcType::table: {
		auto asize = vm.value<uint32_t>(r.addr + ly.tab_asize);
		auto hmask = vm.value<uint32_t>(r.addr + ly.tab_hmask);
		if (!asize || !hmask)
			return "unreadable";
		return "array " + std::to_string(*asize) + ", hash " +
		       std::to_string(*hmask ? uint64_t(*hmask) + 1 : 0);
	}
	default:
		return "";
	}
}

} // namespace ljcore::gc
