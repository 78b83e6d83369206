// The streaming writer against print_json: the same document, built as a
// DOM and written as a stream, must come out byte for byte the same.
#include <doctest/doctest.h>

#include <sstream>
#include <stdexcept>

#include "cli/json_writer.h"
#include "cli/render_bytes.h"

using namespace ljcore;
using nlohmann::json;

namespace {

std::string printed(const json &doc)
{
	std::ostringstream out;
	print_json(out, doc);
	return out.str();
}

} // namespace

TEST_CASE("JsonWriter writes what print_json writes")
{
	// Names that sort around their "_hex" siblings: "line" < "line_defined"
	// < "line_hex" < "lines", "name" < "name_hex" < "namewhat".
	const std::string bad = "chunk\xffname", controls("\"\\\b\f\n\r\t\x01\x1f\x7f\0", 11);
	json frame = {{"line", bad},           {"line_defined", 3}, {"lines", {1, 2}},
		      {"name", bad},           {"namewhat", ""},    {"empty", json::object()},
		      {"none", json::array()}, {"ok", true},        {"neg", -5},
		      {"big", UINT64_MAX},     {"null", nullptr},   {"text", controls}};
	json doc = {{"args", {"a", "\x80", std::string("\0", 1)}},
		    {"frames", {frame, frame}},
		    {"census", {{"by_path_prefix", {{"T.k\xc8", 5}, {"T.plain", 6}}}}},
		    {"nested", {json::array({"x\xfe"}), json::array(), json::array({"y"})}},
		    {"source", "=\xfe"}};

	std::ostringstream out;
	{
		JsonWriter w(out);
		w.begin_object();
		w.key("args").value(std::vector<std::string>{"a", "\x80", std::string("\0", 1)});
		w.key("census").value(doc["census"]);
		w.key("frames").begin_array();
		for (int i = 0; i < 2; i++) {
			w.begin_object();
			w.key("big").value(UINT64_MAX);
			w.key("empty").begin_object();
			w.end_object();
			w.key("line").value(bad);
			w.key("line_defined").value(3);
			w.key("lines").begin_array();
			w.value(1);
			w.value(2);
			w.end_array();
			w.key("name").value(bad);
			w.key("namewhat").value("");
			w.key("neg").value(-5);
			w.key("none").begin_array();
			w.end_array();
			w.key("null").value(nullptr);
			w.key("ok").value(true);
			w.key("text").value(controls);
			w.end_object();
		}
		w.end_array();
		w.key("nested").begin_array();
		w.value(std::vector<std::string>{"x\xfe"});
		w.value(std::vector<std::string>{});
		w.value(std::vector<std::string>{"y"});
		w.end_array();
		w.key("source").value("=\xfe");
		w.end_object();
		w.finish();
	}
	CHECK(out.str() == printed(doc));
}

TEST_CASE("JsonWriter writes scalars and empty documents as print_json does")
{
	for (const json &doc : {json::object(), json::array(), json("\xff"), json(7)}) {
		std::ostringstream out;
		JsonWriter w(out);
		w.value(doc);
		w.finish();
		CHECK(out.str() == printed(doc));
	}
}

TEST_CASE("JsonWriter refuses members out of name order")
{
	std::ostringstream out;
	JsonWriter w(out);
	w.begin_object();
	w.key("b").value(1);
	CHECK_THROWS_AS(w.key("a"), std::logic_error);
	CHECK_THROWS_AS(w.key("b"), std::logic_error);
}
