// The core alone (FileLookup::core_only): the modules libdwfl knows are
// those the core records, named, placed and identified by build-id, with no
// file of this machine behind them.
#include <doctest/doctest.h>

#include <string>

#include "analyzer/analyze.h"

using namespace ljcore;

TEST_CASE("from the core alone, modules come with the core's build-ids and no file")
{
	const std::string core =
		LJCORE_SOURCE_DIR "/testdata/fixtures/upstream-gc64-debug/nested_calls/core.zst";
	auto session = open_core(core, FileLookup{.exe = {}, .sysroot = {}, .core_only = true});
	REQUIRE(session.has_value());
	const MappedFiles &files = session->core->files();
	auto modules = session->native->modules();
	REQUIRE_FALSE(modules.empty());
	bool libc = false;
	for (const ModuleInfo &m : modules) {
		INFO(m.name);
		CHECK(m.file.empty());
		CHECK(m.low < m.high);
		// The same notes, read by MappedFiles on its own.
		CHECK(m.build_id == files.core_build_id(m.low).value_or(""));
		if (m.name.ends_with("/libc.so.6")) {
			libc = true;
			CHECK(m.build_id.size() == 40);
		}
	}
	CHECK(libc);
}
