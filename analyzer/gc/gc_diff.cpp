#include "analyzer/gc/gc_diff.h"

#include <algorithm>
#include <map>
#include <set>

namespace ljcore {

namespace {

// The growth of each prefix of either map, most grown first; both maps
// are sorted by prefix: one merge pass.
std::vector<GcPrefixGrowth> prefix_growth(const std::map<std::string, uint64_t> &before,
					  const std::map<std::string, uint64_t> &after)
{
	std::vector<GcPrefixGrowth> out;
	auto b = before.begin(), a = after.begin();
	while (b != before.end() || a != after.end()) {
		if (a == after.end() || (b != before.end() && b->first < a->first)) {
			out.push_back({b->first, b->second, 0});
			++b;
		} else if (b == before.end() || a->first < b->first) {
			out.push_back({a->first, 0, a->second});
			++a;
		} else {
			out.push_back({a->first, b->second, a->second});
			++a, ++b;
		}
	}
	std::stable_sort(out.begin(), out.end(),
			 [](auto &x, auto &y) { return x.growth() > y.growth(); });
	return out;
}

} // namespace

GcDiff gc_diff(const GcCensus &before, const GcCensus &after)
{
	GcDiff d;
	d.total_before = before.gc_total;
	d.total_after = after.gc_total;
	for (size_t i = 0; i < gc_type_count; i++) {
		d.types[i].count = int64_t(after.types[i].count) - int64_t(before.types[i].count);
		d.types[i].bytes = int64_t(after.types[i].bytes) - int64_t(before.types[i].bytes);
	}
	d.prefixes = prefix_growth(before.by_prefix, after.by_prefix);
	if (before.retained && after.retained)
		d.retained = prefix_growth(before.retained->by_prefix, after.retained->by_prefix);
	std::set<std::string> known;
	for (auto &o : before.top)
		if (!o.path.empty())
			known.insert(o.path);
	for (auto &o : after.top)
		if (!o.path.empty() && !known.count(o.path))
			d.new_largest.push_back(o);
	return d;
}

} // namespace ljcore
