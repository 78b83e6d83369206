// Formatting rules copied from LuaJIT's behaviour (lj_debug.c, lj_strfmt.c).
#include <doctest/doctest.h>

#include "analyzer/lua/lua_debug.h"

using namespace ljcore;

TEST_CASE("short_source follows lj_debug_shortname")
{
	CHECK(short_source("@crash.lua", 1) == "crash.lua");
	CHECK(short_source("=stdin", 0) == "stdin");
	CHECK(short_source("return 1", 0) == "[string \"return 1\"]");
	// Cut at the first control character, with "..." appended.
	CHECK(short_source("local x = 1\nerror()", 0) == "[string \"local x = 1...\"]");
	// Long file names keep their last LUA_IDSIZE-4 characters.
	std::string longname(70, 'a');
	std::string s = short_source("@" + longname, 1);
	CHECK(s.size() == 59);
	CHECK(s.starts_with("..."));
	// Long chunks are cut to LUA_IDSIZE-15 characters.
	std::string chunk(80, 'x');
	CHECK(short_source(chunk, 0) == "[string \"" + std::string(45, 'x') + "...\"]");
	CHECK(short_source(std::string(48, 'y'), 0) == "[string \"" + std::string(48, 'y') + "\"]");
}

TEST_CASE("luajit_pointer prints like lj_strfmt_wptr")
{
	CHECK(luajit_pointer(0) == "NULL");
	CHECK(luajit_pointer(0x1234) == "0x00001234");
	CHECK(luajit_pointer(0x55d0c8a2b1c0) == "0x55d0c8a2b1c0");
	CHECK(luajit_pointer(0x7f0000000010) == "0x7f0000000010");
	CHECK(luajit_pointer(0x100000000) == "0x0100000000");
}

TEST_CASE("bc_position undoes the pc bias of debug_framepc")
{
	Proto pt;
	pt.bc = 0x1000;
	pt.sizebc = 10;
	CHECK(bc_position(pt, 0) == no_bcpos);
	CHECK(bc_position(pt, 0x1004) == 0);
	CHECK(bc_position(pt, 0x1000 + 4 * 11) == 10);
	CHECK(bc_position(pt, 0x1000 + 4 * 12) == no_bcpos);
	CHECK(bc_position(pt, 0x1002) == no_bcpos);
}
