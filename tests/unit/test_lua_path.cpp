// The expressions of ljcore print: each root form, steps, Lua string
// escapes, and errors that say where.
#include <doctest/doctest.h>

#include "analyzer/values/lua_path.h"

using namespace ljcore;

TEST_CASE("print expressions: roots")
{
	auto g = parse_lua_path("package.loaded[\"resty.lrucache\"]");
	REQUIRE(g);
	CHECK(g->root == LuaPath::Root::globals);
	REQUIRE(g->steps.size() == 3);
	CHECK(g->steps[0].bytes == "package");
	CHECK(g->steps[2].bytes == "resty.lrucache");

	auto r = parse_lua_path("registry[2]");
	REQUIRE(r);
	CHECK(r->root == LuaPath::Root::registry);
	CHECK(r->steps[0].kind == LuaKey::Kind::number);
	CHECK(r->steps[0].number == 2);

	auto l = parse_lua_path("frame 3 local tag");
	REQUIRE(l);
	CHECK(l->root == LuaPath::Root::local);
	CHECK(l->frame == 3);
	CHECK(l->variable == "tag");

	auto u = parse_lua_path("upvalue 1 of frame 2 .x [true]");
	REQUIRE(u);
	CHECK(u->root == LuaPath::Root::upvalue);
	CHECK(u->frame == 2);
	CHECK(u->index == 1);
	REQUIRE(u->steps.size() == 2);
	CHECK(u->steps[1].kind == LuaKey::Kind::boolean);
	CHECK(u->steps[1].boolean);

	auto a = parse_lua_path("0x7f00deadbeef.name");
	REQUIRE(a);
	CHECK(a->root == LuaPath::Root::address);
	CHECK(a->address == 0x7f00deadbeefull);

	auto G = parse_lua_path("_G");
	REQUIRE(G);
	CHECK(G->steps.empty());
}

TEST_CASE("print expressions: string keys are bytes, with Lua's escapes")
{
	auto p = parse_lua_path(R"(t["a\0b\255\x41\n\"'"]['it''s'])");
	CHECK(!p); // two adjacent strings are not a key
	p = parse_lua_path(R"(t["a\0b\255\x41\n\"'"])");
	REQUIRE(p);
	CHECK(p->steps[1].bytes == std::string("a\0b\xff"
					       "A\n\"'",
					       8));
	CHECK(key_text(p->steps[1]) == R"(["a\000b\255A\010\"'"])");
	CHECK(key_text(p->steps[0]) == ".t");
	LuaKey n;
	n.kind = LuaKey::Kind::number;
	n.number = 2.5;
	CHECK(key_text(n) == "[2.5]");
}

TEST_CASE("print expressions: errors say where")
{
	auto bad = parse_lua_path("frame x local y");
	REQUIRE(!bad);
	CHECK(bad.error().message.find("offset 6") != std::string::npos);
	CHECK(!parse_lua_path("local 0 of frame 1"));
	CHECK(!parse_lua_path("t[\"open"));
	CHECK(!parse_lua_path("t[1"));
	CHECK(!parse_lua_path("t..x"));
	CHECK(!parse_lua_path("t[\"\\x4\"]"));
	CHECK(!parse_lua_path("t[\"\\256\"]"));
	CHECK(!parse_lua_path(""));
	CHECK(!parse_lua_path("t[nan]"));
}
