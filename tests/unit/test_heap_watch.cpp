// gc --every: which paths count as grown, and the durations it accepts.
#include <doctest/doctest.h>

#include "analyzer/heap_watch.h"
#include "cli/gc_watch.h"

using namespace ljcore;

namespace {

std::vector<HeapSnapshot> snapshots(std::vector<std::map<std::string, uint64_t>> sizes)
{
	std::vector<HeapSnapshot> out;
	for (auto &s : sizes) {
		out.emplace_back();
		out.back().bytes_by_path = std::move(s);
	}
	return out;
}

std::vector<std::string> paths_of(const std::vector<GrowingPath> &grew)
{
	std::vector<std::string> out;
	for (auto &g : grew)
		out.push_back(g.path);
	return out;
}

} // namespace

TEST_CASE("a path grew only when it grew in every interval")
{
	auto grew = growing_paths(snapshots({
		{{"_G.a", 10}, {"_G.b", 10}, {"_G.c", 10}},
		{{"_G.a", 20}, {"_G.b", 30}, {"_G.c", 10}},
		{{"_G.a", 30}, {"_G.b", 20}, {"_G.c", 50}, {"_G.d", 5}},
	}));
	CHECK(paths_of(grew) == std::vector<std::string>{"_G.a"});
	CHECK(grew[0].bytes == std::vector<uint64_t>{10, 20, 30});
	CHECK(grew[0].growth() == 20);
	// A path absent at first counts as 0 bytes there.
	grew = growing_paths(snapshots({{}, {{"_G.n", 1}}, {{"_G.n", 2}}}));
	CHECK(paths_of(grew) == std::vector<std::string>{"_G.n"});
	CHECK(growing_paths(snapshots({{{"_G.a", 1}}})).empty());
}

TEST_CASE("of a path and one under it that both grew, the longer one is named")
{
	auto grew = growing_paths(snapshots({
		{{"_G.app", 100},
		 {"_G.app.cache", 50},
		 {"_G.appB", 1},
		 {"_G.app[\"x\"]", 1},
		 {"registry", 1}},
		{{"_G.app", 200},
		 {"_G.app.cache", 140},
		 {"_G.appB", 2},
		 {"_G.app[\"x\"]", 1},
		 {"registry", 2}},
	}));
	// "_G.appB" is not under "_G.app"; biggest growth first.
	CHECK(paths_of(grew) == std::vector<std::string>{"_G.app.cache", "_G.appB", "registry"});
}

TEST_CASE("durations of --every")
{
	CHECK(parse_duration("30s") == 30);
	CHECK(parse_duration("30") == 30);
	CHECK(parse_duration("500ms") == doctest::Approx(0.5));
	CHECK(parse_duration("2m") == 120);
	CHECK(parse_duration("1.5h") == 5400);
	CHECK(!parse_duration("0s"));
	CHECK(!parse_duration("-1s"));
	CHECK(!parse_duration("5x"));
	CHECK(!parse_duration("s"));
	CHECK(!parse_duration("nan"));
	CHECK(!parse_duration(""));
}
