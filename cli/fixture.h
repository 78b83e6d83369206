// Regression fixtures: a minimized core plus the analysis expected of it,
// checked on every commit (ljcore fixture new | check | update).
#pragma once

#include <string>
#include <vector>

#include "analyzer/analyze.h"

namespace ljcore {

struct FixtureNew {
	std::string core;
	std::string dir;
	std::string scenario; // manifest fields, free text
	std::string flavour;
	std::string made_by;
	AnalyzeOptions options;
};

int fixture_new(const FixtureNew &f);
// Re-analyzes every fixture under the roots; prints what changed.
int fixture_check(const std::vector<std::string> &roots);
int fixture_update(const std::vector<std::string> &roots);

} // namespace ljcore
