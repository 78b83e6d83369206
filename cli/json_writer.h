// JSON written as it is produced, byte for byte what print_json writes for
// the same document (render_bytes.h): indented by 2, members in the order
// nlohmann::json's std::map keeps them, strings from the target encoded
// with their "<name>_hex" siblings. Memory grows with the nesting depth
// and the strings not yet written, never with the size of the document.
#pragma once

#include <charconv>
#include <ostream>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <nlohmann/json.hpp>

namespace ljcore {

class JsonWriter {
public:
	explicit JsonWriter(std::ostream &out) : out_(out) {}
	JsonWriter(const JsonWriter &) = delete;
	JsonWriter &operator=(const JsonWriter &) = delete;
	~JsonWriter() { flush(); }

	void begin_object() { open('{', true); }
	void end_object();
	void begin_array() { open('[', false); }
	void end_array();

	// The next member's name: plain ASCII, in increasing byte order within
	// an object (a std::map's order, so that output matches print_json);
	// std::logic_error otherwise.
	JsonWriter &key(std::string_view name);

	void value(std::string_view bytes); // target bytes: any byte allowed
	void value(const std::string &bytes) { value(std::string_view(bytes)); }
	void value(const char *bytes) { value(std::string_view(bytes)); }
	void value(bool b) { scalar(b ? "true" : "false"); }
	template <typename Int, typename = std::enable_if_t<std::is_integral_v<Int>>>
	void value(Int v)
	{
		char text[24];
		auto end = std::to_chars(text, text + sizeof text, v).ptr;
		scalar(std::string_view(text, size_t(end - text)));
	}
	void value(std::nullptr_t) { scalar("null"); }
	// A small subtree built as a DOM (a census, one trace): encoded and
	// written in place.
	void value(nlohmann::json dom);
	void value(const std::vector<std::string> &list);

	// The document's end: a newline, everything handed to the stream.
	void finish();

private:
	struct Level {
		bool object = false;
		bool empty = true;
		std::string key; // object: the member being written
		// object: "<name>_hex" siblings due once the names before them are
		// written, in order.
		std::vector<std::pair<std::string, nlohmann::json>> pending;
		size_t items = 0; // array: items written
		// array: the "<name>_hex" list's non-null items, by index.
		std::vector<std::pair<size_t, nlohmann::json>> raw;
	};

	void open(char bracket, bool object);
	void element(); // separator and indentation before an item or member
	void scalar(std::string_view text);
	// The value just written is done; raw is what its "<name>_hex" sibling
	// (or its item in one) holds, null for none.
	void done(nlohmann::json raw);
	void write_pending(const std::string &before);
	void indent(size_t depth);
	void string(std::string_view utf8);
	void flush();

	std::ostream &out_;
	std::string buf_;
	std::vector<Level> levels_;
};

} // namespace ljcore
