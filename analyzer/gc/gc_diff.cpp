#include "analyzer/gc/gc_diff.h"

#include <algorithm>
#include <set>

namespace ljcore {

GcDiff gc_diff(const GcCensus &before, const GcCensus &after)
{
	GcDiff d;
	d.total_before = before.gc_total;
	d.total_after = after.gc_total;
	for (size_t i = 0; i < gc_type_count; i++) {
		d.types[i].count = int64_t(after.types[i].count) - int64_t(before.types[i].count);
		d.types[i].bytes = int64_t(after.types[i].bytes) - int64_t(before.types[i].bytes);
	}
	// Both maps are sorted by prefix: one merge pass.
	auto b = before.by_prefix.begin(), a = after.by_prefix.begin();
	while (b != before.by_prefix.end() || a != after.by_prefix.end()) {
		if (a == after.by_prefix.end() ||
		    (b != before.by_prefix.end() && b->first < a->first)) {
			d.prefixes.push_back({b->first, b->second, 0});
			++b;
		} else if (b == before.by_prefix.end() || a->first < b->first) {
			d.prefixes.push_back({a->first, 0, a->second});
			++a;
		} else {
			d.prefixes.push_back({a->first, b->second, a->second});
			++a, ++b;
		}
	}
	std::stable_sort(d.prefixes.begin(), d.prefixes.end(),
			 [](auto &x, auto &y) { return x.growth() > y.growth(); });
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
