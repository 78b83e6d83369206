#include "analyzer/gc/object_detail.h"

#include <cstdio>

#include "analyzer/lua/object_size.h"

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
	switch (r.type) {
	case GcType::string: {
		auto len = vm.str_len(r.addr);
		auto s = vm.str(r.addr, 40);
		if (!len || !s)
			return "unreadable";
		return "len " + std::to_string(*len) + " " + printable_prefix(*s, 32);
	}
	case GcType::table: {
		object_size::VmObject fields{vm, r.addr};
		auto t = object_size::table(vm.layout(), fields);
		if (fields.failed)
			return "unreadable";
		return "array " + std::to_string(t.asize) + ", hash " +
		       std::to_string(t.hmask ? uint64_t(t.hmask) + 1 : 0);
	}
	default:
		return "";
	}
}

} // namespace ljcore::gc
