// How target bytes are shown: escaped for a terminal, lossless in JSON.
#include <doctest/doctest.h>

#include <sstream>

#include "cli/render_bytes.h"

using namespace ljcore;
using nlohmann::json;

TEST_CASE("printable escapes controls and bytes that are not UTF-8")
{
	CHECK(printable("plain.lua:12") == "plain.lua:12");
	CHECK(printable("caf\xc3\xa9 \xe2\x82\xac") == "caf\xc3\xa9 \xe2\x82\xac");
	CHECK(printable("chunk\xffname") == "chunk\\xffname");
	CHECK(printable("a\tb\nc\r") == "a\\tb\\nc\\r");
	CHECK(printable(std::string("\0\x1b[2J\x7f", 6)) == "\\x00\\x1b[2J\\x7f");
	// C1 controls (CSI is U+009B) and a sequence cut short at the end.
	CHECK(printable("\xc2\x9b"
			"1m") == "\\xc2\\x9b1m");
	CHECK(printable("x\xe2\x82") == "x\\xe2\\x82");
	// Overlong forms and surrogates are not UTF-8.
	CHECK(printable("\xc0\xaf") == "\\xc0\\xaf");
	CHECK(printable("\xed\xa0\x80") == "\\xed\\xa0\\x80");
	CHECK(printable("\xf4\x90\x80\x80") == "\\xf4\\x90\\x80\\x80");
	CHECK(printable("\xf0\x9f\x98\x80") == "\xf0\x9f\x98\x80");
}

TEST_CASE("encode_target_bytes keeps every byte, in valid UTF-8")
{
	json doc = {{"short_src", "chunk\xffname"},
		    {"name", "ok \xc3\xa9"},
		    {"args", {"a", "\x80", std::string("\0", 1)}},
		    {"frames", {{{"source", "=\xfe"}, {"level", 1}}}},
		    {"by_path_prefix", {{"T.k\xc8", 5}, {"T.plain", 6}}}};
	json same = doc;
	encode_target_bytes(doc);
	CHECK(doc["short_src"] == "chunk\\xffname");
	CHECK(doc["short_src_hex"] == "6368756e6bff6e616d65");
	CHECK(doc["name"] == "ok \xc3\xa9");
	CHECK(!doc.contains("name_hex"));
	CHECK(doc["args"] == json({"a", "\\x80", std::string("\0", 1)}));
	CHECK(doc["args_hex"] == json({nullptr, "80", nullptr}));
	CHECK(doc["frames"][0]["source"] == "=\\xfe");
	CHECK(doc["frames"][0]["source_hex"] == "3dfe");
	CHECK(!doc.contains("frames_hex"));
	CHECK(doc["by_path_prefix"] == json({{"T.k\\xc8", 5}, {"T.plain", 6}}));
	CHECK(doc["by_path_prefix_hex"] == json({{"T.k\\xc8", "542e6bc8"}}));
	// Encoded, it is valid: dump() no longer throws, and a second pass
	// changes nothing.
	CHECK_NOTHROW((void)doc.dump());
	json twice = doc;
	encode_target_bytes(twice);
	CHECK(twice == doc);
	// UTF-8 alone: unchanged.
	json text = {{"a", "b"}, {"c", {"d", "\xc3\xa9"}}};
	json copy = text;
	encode_target_bytes(copy);
	CHECK(copy == text);
	CHECK(same != doc);
}

TEST_CASE("print_json writes what python's json module reads")
{
	std::ostringstream out;
	print_json(out, {{"k", "\xff"}});
	CHECK(out.str() == "{\n  \"k\": \"\\\\xff\",\n  \"k_hex\": \"ff\"\n}\n");
}
