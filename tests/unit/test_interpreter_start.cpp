// Where the walk of a thread caught in the interpreter starts
// (analyzer/stack/interpreter_start.h), on real cores: workers of the busy
// host (testdata/hosts/busy_vms.c) that the kernel stopped where the BASE
// register did not hold, kept as fixtures. Each walk must take the start
// named and reach the stack's bottom.
#include <doctest/doctest.h>

#include <string>

#include "analyzer/analyze.h"

using namespace ljcore;

namespace {

struct Case {
	const char *fixture; // under testdata/fixtures
	const char *start;   // what --explain says was walked from
};

// The evidence that names the start taken, or empty.
std::string start_taken(const Analysis &a)
{
	for (const std::string &e : a.diagnostics.evidence())
		if (e.find("BASE register") != std::string::npos)
			return e;
	return {};
}

} // namespace

TEST_CASE("a worker caught in the interpreter walks from the start whose frame chain holds")
{
	const Case cases[] = {
		// BC_RET1 has stored its result over the function slot; the
		// two-slot link (GC64) still holds PC.
		{"upstream-gc64-debug/busy_vms_returning",
		 "walked from the frame the register's returns to"},
		// BASE stored to L->base, its register reused for a C argument.
		{"luajit2-gc32-debug/busy_vms_reused_base", "walked from L->base"},
		// Returning with one-slot links: the result overwrote the link.
		{"luajit2-gc32-debug/busy_vms_overwritten_link",
		 "walked from the frame PC returns to"},
	};
	for (const Case &c : cases) {
		CAPTURE(c.fixture);
		auto a = analyze_core(std::string(LJCORE_SOURCE_DIR) + "/testdata/fixtures/" +
					      c.fixture + "/core.zst",
				      {});
		REQUIRE(a.has_value());
		// Problems about the files (a rebuilt host at the path the core
		// recorded has another build-id) are not the walk's: none of
		// those about frames may remain.
		for (const std::string &p : a->diagnostics.problems()) {
			CAPTURE(p);
			CHECK(p.find("frame") == std::string::npos);
			CHECK(p.find("stack") == std::string::npos);
		}
		const std::string said = start_taken(*a);
		CAPTURE(said);
		CHECK(said.find(c.start) != std::string::npos);
		CHECK(said.find("whose frame chain holds") != std::string::npos);
		REQUIRE_FALSE(a->vms.empty());
		for (const VmResult &v : a->vms) {
			CHECK(v.stack.complete);
			CHECK_FALSE(v.stack.frames.empty());
		}
	}
}
