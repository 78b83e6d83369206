#include "analyzer/values/lua_path.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace ljcore {

namespace {

bool name_start(char c)
{
	return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}

bool name_char(char c)
{
	return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// A cursor over the expression that reports errors with the offset.
class Parser {
public:
	explicit Parser(std::string_view text) : text_(text) {}

	Expected<LuaPath> parse();

private:
	Error error(const std::string &what) const
	{
		return Error{"expression, at offset " + std::to_string(pos_) + ": " + what};
	}
	void skip_space()
	{
		while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_])))
			pos_++;
	}
	bool at_end()
	{
		skip_space();
		return pos_ == text_.size();
	}
	std::string_view peek_word();
	bool take_word(std::string_view w);
	Expected<std::string> name();
	Expected<uint32_t> integer();
	Expected<LuaKey> key();
	Expected<std::string> quoted();
	Expected<double> number();
	Expected<void> variable(LuaPath &p);

	std::string_view text_;
	size_t pos_ = 0;
};

std::string_view Parser::peek_word()
{
	skip_space();
	size_t end = pos_;
	if (end < text_.size() && name_start(text_[end]))
		while (end < text_.size() && name_char(text_[end]))
			end++;
	return text_.substr(pos_, end - pos_);
}

bool Parser::take_word(std::string_view w)
{
	if (peek_word() != w)
		return false;
	pos_ += w.size();
	return true;
}

Expected<std::string> Parser::name()
{
	std::string_view w = peek_word();
	if (w.empty())
		return std::unexpected(error("expected a name"));
	pos_ += w.size();
	return std::string(w);
}

Expected<uint32_t> Parser::integer()
{
	skip_space();
	uint32_t v = 0;
	auto [end, ec] = std::from_chars(text_.data() + pos_, text_.data() + text_.size(), v);
	if (ec != std::errc())
		return std::unexpected(error("expected a non-negative integer"));
	pos_ = size_t(end - text_.data());
	return v;
}

Expected<double> Parser::number()
{
	// strtod wants a terminated string; a number is short.
	size_t end = pos_;
	while (end < text_.size() && (name_char(text_[end]) || text_[end] == '.' ||
				      text_[end] == '-' || text_[end] == '+'))
		end++;
	std::string s(text_.substr(pos_, end - pos_));
	char *stop = nullptr;
	double v = std::strtod(s.c_str(), &stop);
	if (s.empty() || *stop != '\0' || !std::isfinite(v))
		return std::unexpected(error("expected a number"));
	pos_ = end;
	return v;
}

// A Lua string literal with its escapes (lj_lex.c): \n \t \\ \" \ddd \xXX...
Expected<std::string> Parser::quoted()
{
	char quote = text_[pos_++];
	std::string out;
	while (pos_ < text_.size() && text_[pos_] != quote) {
		char c = text_[pos_++];
		if (c != '\\') {
			out += c;
			continue;
		}
		if (pos_ == text_.size())
			break;
		c = text_[pos_++];
		switch (c) {
		case 'a':
			out += '\a';
			break;
		case 'b':
			out += '\b';
			break;
		case 'f':
			out += '\f';
			break;
		case 'n':
			out += '\n';
			break;
		case 'r':
			out += '\r';
			break;
		case 't':
			out += '\t';
			break;
		case 'v':
			out += '\v';
			break;
		case 'x': {
			unsigned v = 0;
			auto [end, ec] = std::from_chars(
				text_.data() + pos_,
				text_.data() + std::min(pos_ + 2, text_.size()), v, 16);
			if (ec != std::errc() || end != text_.data() + pos_ + 2)
				return std::unexpected(error("\\x takes two hex digits"));
			pos_ += 2;
			out += char(v);
			break;
		}
		default:
			if (std::isdigit(static_cast<unsigned char>(c))) {
				unsigned v = unsigned(c - '0');
				for (int i = 0;
				     i < 2 && pos_ < text_.size() &&
				     std::isdigit(static_cast<unsigned char>(text_[pos_]));
				     i++)
					v = v * 10 + unsigned(text_[pos_++] - '0');
				if (v > 255)
					return std::unexpected(error("decimal escape above 255"));
				out += char(v);
			} else {
				out += c; // \\ \" \' and the rest as themselves
			}
		}
	}
	if (pos_ == text_.size())
		return std::unexpected(error("unfinished string"));
	pos_++;
	return out;
}

Expected<LuaKey> Parser::key()
{
	skip_space();
	LuaKey k;
	if (pos_ < text_.size() && (text_[pos_] == '"' || text_[pos_] == '\'')) {
		auto s = quoted();
		if (!s)
			return std::unexpected(s.error());
		k.bytes = std::move(*s);
		return k;
	}
	for (bool b : {true, false})
		if (take_word(b ? "true" : "false")) {
			k.kind = LuaKey::Kind::boolean;
			k.boolean = b;
			return k;
		}
	auto n = number();
	if (!n)
		return std::unexpected(error("expected a string, number or boolean key"));
	k.kind = LuaKey::Kind::number;
	k.number = *n;
	return k;
}

// NAME or INDEX after "local" / "upvalue".
Expected<void> Parser::variable(LuaPath &p)
{
	skip_space();
	if (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
		auto n = integer();
		if (!n)
			return std::unexpected(n.error());
		if (*n == 0)
			return std::unexpected(error("variables count from 1"));
		p.index = *n;
		return {};
	}
	auto n = name();
	if (!n)
		return std::unexpected(n.error());
	p.variable = std::move(*n);
	return {};
}

Expected<LuaPath> Parser::parse()
{
	LuaPath p;
	skip_space();
	std::string_view w = peek_word();
	if (text_.substr(pos_).starts_with("0x") || text_.substr(pos_).starts_with("0X")) {
		pos_ += 2;
		auto [end, ec] = std::from_chars(text_.data() + pos_, text_.data() + text_.size(),
						 p.address, 16);
		if (ec != std::errc())
			return std::unexpected(error("expected a hex address"));
		pos_ = size_t(end - text_.data());
		p.root = LuaPath::Root::address;
	} else if (w == "frame") {
		pos_ += w.size();
		auto level = integer();
		if (!level)
			return std::unexpected(level.error());
		p.frame = *level;
		if (take_word("local"))
			p.root = LuaPath::Root::local;
		else if (take_word("upvalue"))
			p.root = LuaPath::Root::upvalue;
		else
			return std::unexpected(error("expected local or upvalue after frame N"));
		if (auto v = variable(p); !v)
			return std::unexpected(v.error());
	} else if (w == "local" || w == "upvalue") {
		pos_ += w.size();
		p.root = w == "local" ? LuaPath::Root::local : LuaPath::Root::upvalue;
		if (auto v = variable(p); !v)
			return std::unexpected(v.error());
		if (!take_word("of") || !take_word("frame"))
			return std::unexpected(error("expected of frame N"));
		auto level = integer();
		if (!level)
			return std::unexpected(level.error());
		p.frame = *level;
	} else if (w == "registry") {
		pos_ += w.size();
		p.root = LuaPath::Root::registry;
	} else if (w == "_G") {
		pos_ += w.size();
	} else if (!w.empty()) {
		// A leading name is a global: package.loaded is _G.package.loaded.
		LuaKey k;
		k.bytes = std::string(w);
		p.steps.push_back(std::move(k));
		pos_ += w.size();
	} else {
		return std::unexpected(error("expected _G, registry, a global's name, frame N "
					     "local|upvalue X, or a 0x address"));
	}
	while (!at_end()) {
		char c = text_[pos_++];
		if (c == '.') {
			auto n = name();
			if (!n)
				return std::unexpected(n.error());
			LuaKey k;
			k.bytes = std::move(*n);
			p.steps.push_back(std::move(k));
		} else if (c == '[') {
			auto k = key();
			if (!k)
				return std::unexpected(k.error());
			skip_space();
			if (pos_ == text_.size() || text_[pos_] != ']')
				return std::unexpected(error("expected ]"));
			pos_++;
			p.steps.push_back(std::move(*k));
		} else {
			pos_--;
			return std::unexpected(error("expected .name or [key]"));
		}
	}
	return p;
}

} // namespace

Expected<LuaPath> parse_lua_path(std::string_view text)
{
	return Parser(text).parse();
}

std::string key_text(const LuaKey &k)
{
	switch (k.kind) {
	case LuaKey::Kind::boolean:
		return k.boolean ? "[true]" : "[false]";
	case LuaKey::Kind::number: {
		char buf[32];
		snprintf(buf, sizeof buf, "[%.14g]", k.number);
		return buf;
	}
	case LuaKey::Kind::string:
		break;
	}
	bool plain = !k.bytes.empty() && name_start(k.bytes[0]);
	for (char c : k.bytes)
		plain = plain && name_char(c);
	if (plain)
		return "." + k.bytes;
	std::string out = "[\"";
	for (unsigned char c : k.bytes) {
		if (c == '"' || c == '\\') {
			out += '\\';
			out += char(c);
		} else if (c < 0x20 || c >= 0x7f) {
			char buf[8];
			snprintf(buf, sizeof buf, "\\%03u", c);
			out += buf;
		} else {
			out += char(c);
		}
	}
	return out + "\"]";
}

} // namespace ljcore
