#include "analyzer/lua/object_refs.h"

#include <cmath>

#include "analyzer/lua/lua_debug.h"

namespace ljcore {

namespace {

bool identifier(const std::string &s)
{
	if (s.empty() || isdigit((unsigned char)s[0]))
		return false;
	for (unsigned char c : s)
		if (!isalnum(c) && c != '_')
			return false;
	return true;
}

std::string quoted(const std::string &s)
{
	std::string out = "\"";
	for (unsigned char c : s) {
		if (c == '"' || c == '\\') {
			out += '\\';
			out += char(c);
		} else if (c >= 0x20 && c < 0x7f) {
			out += char(c);
		} else {
			char buf[8];
			snprintf(buf, sizeof buf, "\\%u", c);
			out += buf;
		}
	}
	return out + "\"";
}

std::string number_key(uint64_t bits)
{
	double d;
	memcpy(&d, &bits, 8);
	char buf[40];
	if (d == std::floor(d) && std::fabs(d) < 1e15)
		snprintf(buf, sizeof buf, "[%lld]", (long long)d);
	else
		snprintf(buf, sizeof buf, "[%.17g]", d);
	return buf;
}

std::string other_key(const Vm &vm, uint64_t key)
{
	if (key == tvalue::tag_true)
		return "[true]";
	if (key == tvalue::tag_false)
		return "[false]";
	if (key < 16)
		return "[<lightuserdata>]";
	return "[<" + std::string(vm.gct(key).value_or(0) == LJ_TTAB ? "table" : "object") + " " +
	       luajit_pointer(key) + ">]";
}

// The name lj_debug_uvname() gives upvalue index of Lua function fn, or
// "" when it has none or its prototype cannot be read.
std::string upvalue_name_of(const Vm &vm, uint64_t fn, uint32_t index)
{
	auto pt = function_proto(vm, fn);
	return pt ? ljcore::upvalue_name(vm, *pt, index).value_or("") : "";
}

} // namespace

std::string ref_label(const Vm &vm, RefKind kind, uint64_t key, uint64_t from)
{
	switch (kind) {
	case RefKind::field: {
		std::string s = vm.str(key, 200).value_or("?");
		return identifier(s) ? "." + s : "[" + quoted(s) + "]";
	}
	case RefKind::index:
		return number_key(key);
	case RefKind::other_key:
		return other_key(vm, key);
	case RefKind::as_key:
		return "<a key>";
	case RefKind::metatable:
		return "<metatable>";
	case RefKind::upvalue: {
		std::string name = upvalue_name_of(vm, from, uint32_t(key));
		return name.empty() ? "<upvalue " + std::to_string(key + 1) + ">"
				    : "<upvalue '" + name + "'>";
	}
	case RefKind::c_upvalue:
		return "<upvalue " + std::to_string(key + 1) + ">";
	case RefKind::stack_slot:
		return "<stack slot " + std::to_string(key) + ">";
	case RefKind::prototype:
		return "<prototype>";
	case RefKind::constant:
		return "<constant " + std::to_string(key) + ">";
	case RefKind::env:
		return "<env>";
	case RefKind::upvalue_value:
		return ""; // the step to the GCupval named it
	case RefKind::chunkname:
		return "<chunk name>";
	case RefKind::trace:
		return "<trace " + std::to_string(key) + ">";
	case RefKind::trace_constant:
		return "<IR constant " + std::to_string(int64_t(key) - LJ_REF_BIAS) + ">";
	}
	return "?";
}

} // namespace ljcore
