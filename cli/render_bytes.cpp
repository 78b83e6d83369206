// Target bytes in text and JSON output (see render_bytes.h).
#include "cli/render_bytes.h"

#include <vector>

namespace ljcore {

namespace {

using nlohmann::json;

// The length of the well-formed UTF-8 sequence at s[i] (Unicode's table 3-7:
// no overlong forms, surrogates or code points past U+10FFFF), or 0.
size_t utf8_sequence(std::string_view s, size_t i)
{
	auto byte = [&](size_t k) { return i + k < s.size() ? uint8_t(s[i + k]) : 0u; };
	auto tail = [&](size_t k) { return (byte(k) & 0xc0) == 0x80; };
	uint8_t b = byte(0);
	if (b < 0x80)
		return 1;
	if (b >= 0xc2 && b <= 0xdf)
		return tail(1) ? 2 : 0;
	if (b >= 0xe0 && b <= 0xef) {
		uint8_t lo = b == 0xe0 ? 0xa0 : 0x80, hi = b == 0xed ? 0x9f : 0xbf;
		return byte(1) >= lo && byte(1) <= hi && tail(2) ? 3 : 0;
	}
	if (b >= 0xf0 && b <= 0xf4) {
		uint8_t lo = b == 0xf0 ? 0x90 : 0x80, hi = b == 0xf4 ? 0x8f : 0xbf;
		return byte(1) >= lo && byte(1) <= hi && tail(2) && tail(3) ? 4 : 0;
	}
	return 0;
}

void append_hex_byte(std::string &out, uint8_t b)
{
	out += "0123456789abcdef"[b >> 4];
	out += "0123456789abcdef"[b & 15];
}

void append_escaped(std::string &out, uint8_t b)
{
	out += "\\x";
	append_hex_byte(out, b);
}

} // namespace

bool is_utf8(std::string_view s)
{
	for (size_t i = 0, n; i < s.size(); i += n)
		if (!(n = utf8_sequence(s, i)))
			return false;
	return true;
}

std::string escape_non_utf8(std::string_view s)
{
	std::string out;
	for (size_t i = 0; i < s.size();) {
		size_t n = utf8_sequence(s, i);
		if (n) {
			out.append(s.substr(i, n));
			i += n;
		} else {
			append_escaped(out, uint8_t(s[i++]));
		}
	}
	return out;
}

std::string hex_bytes(std::string_view s)
{
	std::string out;
	out.reserve(2 * s.size());
	for (char c : s)
		append_hex_byte(out, uint8_t(c));
	return out;
}

namespace {

// Encodes v in place; returns what its "<name>_hex" sibling holds, or null
// when v needs none.
json encode(json &v)
{
	if (v.is_string()) {
		const std::string &s = v.get_ref<const std::string &>();
		if (is_utf8(s))
			return nullptr;
		json raw = hex_bytes(s);
		v = escape_non_utf8(s);
		return raw;
	}
	if (v.is_array()) {
		json raw = json::array();
		bool needed = false;
		for (auto &item : v) {
			raw.push_back(encode(item));
			needed |= !raw.back().is_null();
		}
		return needed ? raw : json(nullptr);
	}
	if (!v.is_object())
		return nullptr;
	std::vector<std::pair<std::string, json>> siblings;
	for (auto &[name, member] : v.items()) {
		json raw = encode(member);
		if (!raw.is_null())
			siblings.emplace_back(name + "_hex", std::move(raw));
	}
	for (auto &[name, raw] : siblings)
		v[name] = std::move(raw);
	json keys = json::object();
	for (auto it = v.begin(); it != v.end();) {
		if (is_utf8(it.key())) {
			++it;
			continue;
		}
		std::string key = escape_non_utf8(it.key());
		keys[key] = hex_bytes(it.key());
		json member = std::move(*it);
		it = v.erase(it);
		v[key] = std::move(member);
	}
	return keys.empty() ? json(nullptr) : keys;
}

} // namespace

std::string printable(std::string_view bytes)
{
	std::string out;
	for (size_t i = 0; i < bytes.size();) {
		size_t n = utf8_sequence(bytes, i);
		uint8_t b = uint8_t(bytes[i]);
		// C1 controls are U+0080..U+009F: 0xc2 0x80..0x9f.
		bool control = n == 1 ? b < 0x20 || b == 0x7f
				      : n == 2 && b == 0xc2 && uint8_t(bytes[i + 1]) < 0xa0;
		if (n && !control) {
			out.append(bytes.substr(i, n));
		} else if (b == '\t' || b == '\n' || b == '\r') {
			out += b == '\t' ? "\\t" : b == '\n' ? "\\n" : "\\r";
		} else {
			for (size_t k = 0; k < std::max<size_t>(n, 1); k++)
				append_escaped(out, uint8_t(bytes[i + k]));
		}
		i += std::max<size_t>(n, 1);
	}
	return out;
}

json encode_target_bytes(json &doc)
{
	return encode(doc);
}

void print_json(std::ostream &out, json doc)
{
	encode_target_bytes(doc);
	// After encoding every string is UTF-8; replace keeps even a bug from
	// turning into an exception here.
	out << doc.dump(2, ' ', false, json::error_handler_t::replace) << "\n";
}

} // namespace ljcore
