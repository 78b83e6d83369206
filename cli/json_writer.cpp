// A streaming JSON writer that agrees with print_json (see json_writer.h).
#include "cli/json_writer.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include "cli/render_bytes.h"

namespace ljcore {

namespace {

// Written to the stream in pieces of about this size.
constexpr size_t flush_bytes = 1 << 16;

} // namespace

void JsonWriter::indent(size_t depth)
{
	buf_.append(2 * depth, ' ');
}

void JsonWriter::flush()
{
	out_.write(buf_.data(), std::streamsize(buf_.size()));
	buf_.clear();
}

void JsonWriter::element()
{
	if (levels_.empty())
		return;
	Level &l = levels_.back();
	buf_ += l.empty ? "\n" : ",\n";
	l.empty = false;
	indent(levels_.size());
}

void JsonWriter::open(char bracket, bool object)
{
	if (!levels_.empty() && !levels_.back().object)
		element();
	buf_ += bracket;
	Level l;
	l.object = object;
	levels_.push_back(std::move(l));
}

// A JSON string as nlohmann::json's dump escapes it (ensure_ascii off).
void JsonWriter::string(std::string_view utf8)
{
	buf_ += '"';
	for (char c : utf8) {
		switch (c) {
		case '"':
			buf_ += "\\\"";
			break;
		case '\\':
			buf_ += "\\\\";
			break;
		case '\b':
			buf_ += "\\b";
			break;
		case '\f':
			buf_ += "\\f";
			break;
		case '\n':
			buf_ += "\\n";
			break;
		case '\r':
			buf_ += "\\r";
			break;
		case '\t':
			buf_ += "\\t";
			break;
		default:
			if (uint8_t(c) < 0x20) {
				char esc[8];
				snprintf(esc, sizeof esc, "\\u%04x", unsigned(uint8_t(c)));
				buf_ += esc;
			} else {
				buf_ += c;
			}
		}
	}
	buf_ += '"';
}

void JsonWriter::write_pending(const std::string &before)
{
	if (levels_.empty())
		return;
	auto &pending = levels_.back().pending;
	while (!pending.empty() && (before.empty() || pending.front().first < before)) {
		auto [name, raw] = std::move(pending.front());
		pending.erase(pending.begin());
		element();
		string(name);
		buf_ += ": ";
		levels_.back().key = name;
		value(std::move(raw));
	}
}

JsonWriter &JsonWriter::key(std::string_view name)
{
	std::string k(name);
	// Out of order, the output would differ from print_json's, and JSON
	// readers that keep the last of two equal names would lose one: a bug
	// here, that fixtures and tests must see, not a target to survive.
	if (!levels_.back().empty && k <= levels_.back().key)
		throw std::logic_error("JSON member \"" + k + "\" written after \"" +
				       levels_.back().key + "\"");
	write_pending(k);
	element();
	string(k);
	buf_ += ": ";
	levels_.back().key = std::move(k);
	return *this;
}

void JsonWriter::done(nlohmann::json raw)
{
	if (buf_.size() >= flush_bytes)
		flush();
	if (levels_.empty())
		return;
	Level &l = levels_.back();
	if (l.object) {
		if (raw.is_null())
			return;
		std::string name = l.key + "_hex";
		auto at = std::lower_bound(
			l.pending.begin(), l.pending.end(), name,
			[](const auto &p, const std::string &n) { return p.first < n; });
		l.pending.emplace(at, std::move(name), std::move(raw));
	} else {
		if (!raw.is_null())
			l.raw.emplace_back(l.items, std::move(raw));
		l.items++;
	}
}

void JsonWriter::scalar(std::string_view text)
{
	if (!levels_.empty() && !levels_.back().object)
		element();
	buf_ += text;
	done(nullptr);
}

void JsonWriter::value(std::string_view bytes)
{
	if (!levels_.empty() && !levels_.back().object)
		element();
	if (is_utf8(bytes)) {
		string(bytes);
		done(nullptr);
	} else {
		string(escape_non_utf8(bytes));
		done(hex_bytes(bytes));
	}
}

void JsonWriter::value(nlohmann::json dom)
{
	if (!levels_.empty() && !levels_.back().object)
		element();
	nlohmann::json raw = encode_target_bytes(dom);
	// dump() escapes newlines inside strings, so each one it writes starts
	// a line that needs this level's indentation.
	std::string text = dom.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
	size_t from = 0;
	for (size_t nl; (nl = text.find('\n', from)) != std::string::npos; from = nl + 1) {
		buf_.append(text, from, nl + 1 - from);
		indent(levels_.size());
	}
	buf_.append(text, from);
	done(std::move(raw));
}

void JsonWriter::value(const std::vector<std::string> &list)
{
	begin_array();
	for (auto &s : list)
		value(s);
	end_array();
}

void JsonWriter::end_object()
{
	write_pending("");
	bool empty = levels_.back().empty;
	levels_.pop_back();
	if (!empty) {
		buf_ += '\n';
		indent(levels_.size());
	}
	buf_ += '}';
	done(nullptr);
}

void JsonWriter::end_array()
{
	Level l = std::move(levels_.back());
	levels_.pop_back();
	if (!l.empty) {
		buf_ += '\n';
		indent(levels_.size());
	}
	buf_ += ']';
	nlohmann::json raw;
	if (!l.raw.empty()) {
		raw = nlohmann::json::array();
		for (size_t i = 0, next = 0; i < l.items; i++)
			if (next < l.raw.size() && l.raw[next].first == i)
				raw.push_back(std::move(l.raw[next++].second));
			else
				raw.push_back(nullptr);
	}
	done(std::move(raw));
}

void JsonWriter::finish()
{
	buf_ += '\n';
	flush();
}

} // namespace ljcore
