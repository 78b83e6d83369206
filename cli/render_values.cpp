#include "cli/render_values.h"

#include <cmath>
#include <cstring>

#include "analyzer/model/lua_text.h"
#include "cli/json_writer.h"
#include "cli/render.h"
#include "cli/render_bytes.h"

namespace ljcore {

namespace {

using Type = LuaValue::Type;

// lj_strfmt_num(): "%.14g", with inf, -inf and nan spelled out.
std::string number_text(double n)
{
	if (std::isnan(n))
		return "nan";
	if (std::isinf(n))
		return n < 0 ? "-inf" : "inf";
	char buf[32];
	snprintf(buf, sizeof buf, "%.14g", n);
	return buf;
}

// A string as Lua source would write it: escapes for quotes, backslashes
// and control characters, \ddd for other bytes outside printable ASCII.
std::string quoted(const std::string &bytes)
{
	std::string out = "\"";
	for (size_t i = 0; i < bytes.size(); i++) {
		unsigned char c = bytes[i];
		switch (c) {
		case '"':
			out += "\\\"";
			continue;
		case '\\':
			out += "\\\\";
			continue;
		case '\a':
			out += "\\a";
			continue;
		case '\b':
			out += "\\b";
			continue;
		case '\f':
			out += "\\f";
			continue;
		case '\n':
			out += "\\n";
			continue;
		case '\r':
			out += "\\r";
			continue;
		case '\t':
			out += "\\t";
			continue;
		case '\v':
			out += "\\v";
			continue;
		default:
			break;
		}
		if (c >= 0x20 && c < 0x7f) {
			out += char(c);
			continue;
		}
		// Three digits when a digit follows, or it would read as part
		// of the escape.
		bool digit_next = i + 1 < bytes.size() && isdigit((unsigned char)bytes[i + 1]);
		char buf[8];
		snprintf(buf, sizeof buf, digit_next ? "\\%03u" : "\\%u", c);
		out += buf;
	}
	return out + "\"";
}

bool identifier(const std::string &s)
{
	static const char *const reserved[] = {
		"and",      "break",  "do",   "else", "elseif", "end",   "false", "for",
		"function", "goto",   "if",   "in",   "local",  "nil",   "not",   "or",
		"repeat",   "return", "then", "true", "until",  "while",
	};
	if (s.empty() || isdigit((unsigned char)s[0]))
		return false;
	for (unsigned char c : s)
		if (!isalnum(c) && c != '_')
			return false;
	for (const char *r : reserved)
		if (s == r)
			return false;
	return true;
}

// Names of the fixed ctype ids (CTTYDEF in lj_ctype.h) whose values the
// reader decodes.
const char *ctype_name(uint16_t id)
{
	static const char *const names[] = {
		nullptr,    nullptr,   nullptr,    "bool",     "const char",
		"int8_t",   "uint8_t", "int16_t",  "uint16_t", "int32_t",
		"uint32_t", "int64_t", "uint64_t", "float",    "double",
	};
	return id < std::size(names) ? names[id] : nullptr;
}

std::string cdata_text(const LuaValue &v)
{
	using S = LuaValue::Scalar;
	constexpr uint16_t ctid_int64 = 11, ctid_uint64 = 12;
	// tostring() prints 64-bit integers as Lua literals of the FFI.
	if (v.scalar == S::i64 && v.ctypeid == ctid_int64)
		return std::to_string(int64_t(v.scalar_bits)) + "LL";
	if (v.scalar == S::u64 && v.ctypeid == ctid_uint64)
		return std::to_string(v.scalar_bits) + "ULL";
	auto type_text = [](uint16_t id) {
		const char *name = ctype_name(id);
		return name ? std::string(name) : "ctype " + std::to_string(id);
	};
	// Like tostring(), a pointer shows where it points, not its box.
	if (v.scalar == S::pointer)
		return "cdata<" + type_text(v.pointee) + " *>: " + luajit_pointer(v.scalar_bits);
	std::string s = "cdata<" + type_text(v.ctypeid) + ">: " + luajit_pointer(v.address);
	switch (v.scalar) {
	case S::none:
	case S::pointer:
		return s;
	case S::i64:
		return s + " = " + std::to_string(int64_t(v.scalar_bits));
	case S::u64:
		return s + " = " + std::to_string(v.scalar_bits);
	case S::boolean:
		return s + (v.scalar_bits ? " = true" : " = false");
	case S::f64: {
		double d;
		memcpy(&d, &v.scalar_bits, 8);
		return s + " = " + number_text(d);
	}
	}
	return s;
}

std::string table_text(const LuaValue &v)
{
	std::string s = "table: " + luajit_pointer(v.address) + " (array " +
			std::to_string(v.array_size) + ", hash " + std::to_string(v.hash_size);
	if (v.metatable)
		s += ", metatable " + luajit_pointer(v.metatable);
	s += ")";
	if (v.cycle)
		return s + " {<cycle>}";
	if (!v.expanded)
		return s;
	s += " {";
	for (size_t i = 0; i < v.entries.size(); i++) {
		const TableEntry &e = v.entries[i];
		if (i)
			s += ", ";
		if (e.key.type == Type::string && e.key.bytes.size() == e.key.length &&
		    identifier(e.key.bytes))
			s += e.key.bytes;
		else
			s += "[" + render_value(e.key) + "]";
		s += " = " + render_value(e.value);
	}
	if (v.more)
		s += v.entries.empty() ? "..." : ", ...";
	return s + "}";
}

const char *type_name_of(Type t)
{
	switch (t) {
	case Type::nil:
		return "nil";
	case Type::boolean:
		return "boolean";
	case Type::number:
	case Type::integer:
		return "number";
	case Type::lightuserdata:
	case Type::userdata:
		return "userdata";
	case Type::string:
		return "string";
	case Type::table:
		return "table";
	case Type::function:
		return "function";
	case Type::thread:
		return "thread";
	case Type::cdata:
		return "cdata";
	case Type::unreadable:
		return "unreadable";
	case Type::lost:
		return "lost";
	}
	return "?";
}

} // namespace

const char *value_type_name(const LuaValue &v)
{
	return type_name_of(v.type);
}

std::string render_value(const LuaValue &v)
{
	switch (v.type) {
	case Type::nil:
		return "nil";
	case Type::boolean:
		return v.boolean ? "true" : "false";
	case Type::number:
		return number_text(v.number);
	case Type::integer:
		return std::to_string(v.integer);
	case Type::lightuserdata:
		return "userdata: " + luajit_pointer(v.address);
	case Type::string: {
		std::string s = quoted(v.bytes);
		if (v.bytes.size() < v.length)
			s += "... (len " + std::to_string(v.length) + ")";
		return s;
	}
	case Type::table:
		return table_text(v);
	case Type::function:
		if (v.ffid > 1)
			return "function: builtin#" + std::to_string(v.ffid) +
			       (v.where.empty() ? "" : " <" + printable(v.where) + ">");
		if (v.where.empty())
			return "function: " + luajit_pointer(v.address);
		return "function: " + luajit_pointer(v.address) + " <" + v.where + ">";
	case Type::thread:
		return "thread: " + luajit_pointer(v.address) + " (" + v.status + ")";
	case Type::userdata: {
		std::string s = "userdata: " + luajit_pointer(v.address) + " (size " +
				std::to_string(v.length);
		if (v.metatable)
			s += ", metatable " + luajit_pointer(v.metatable);
		return s + ")";
	}
	case Type::cdata:
		return cdata_text(v);
	case Type::unreadable:
		return "<unreadable " + luajit_pointer(v.address) + ">";
	case Type::lost:
		return "<lost: " + printable(v.why) + ">";
	}
	return "?";
}

void render_frame_variables(std::ostream &out, const FrameVariables &vars,
			    const std::string &indent)
{
	for (const Variable &v : vars.locals)
		out << indent << printable(v.name) << " = " << render_value(v.value) << "\n";
	for (const Variable &v : vars.upvalues)
		out << indent << "upvalue " << printable(v.name) << " = " << render_value(v.value)
		    << "\n";
	if (!vars.note.empty())
		out << indent << "(" << printable(vars.note) << ")\n";
}

namespace {

void variables_json(JsonWriter &w, const std::vector<Variable> &vs)
{
	w.begin_array();
	for (const Variable &v : vs) {
		w.begin_object();
		if (v.value.address)
			w.key("address").value(hex(v.value.address));
		w.key("kind").value(v.kind);
		w.key("name").value(v.name);
		w.key("type").value(value_type_name(v.value));
		w.key("value").value(render_value(v.value));
		w.end_object();
	}
	w.end_array();
}

} // namespace

void write_frame_locals_json(JsonWriter &w, const FrameVariables &vars)
{
	if (!vars.read)
		return;
	w.key("locals");
	variables_json(w, vars.locals);
	if (!vars.note.empty())
		w.key("locals_note").value(vars.note);
}

void write_frame_upvalues_json(JsonWriter &w, const FrameVariables &vars)
{
	if (vars.read) {
		w.key("upvalues");
		variables_json(w, vars.upvalues);
	}
}

} // namespace ljcore
