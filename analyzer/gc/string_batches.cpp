#include "analyzer/gc/string_batches.h"

#include <algorithm>

#include "analyzer/gc/string_table.h"

namespace ljcore::gc {

void StringBatches::work()
{
	StringScratch scratch;
	uint64_t index, first, n;
	while (claim(index, first, n)) {
		std::unique_ptr<Census> p = part();
		bool completed = p->walk_string_batch(tab_, first, n, scratch);
		done(index, std::move(p), completed);
	}
}

bool StringBatches::claim(uint64_t &index, uint64_t &first, uint64_t &n)
{
	if (halted_)
		return false;
	index = next_++;
	if (index >= count_)
		return false;
	first = index * buckets_per_batch;
	n = std::min(buckets_per_batch, buckets_ - first);
	return true;
}

std::unique_ptr<Census> StringBatches::part() const
{
	auto p = std::make_unique<Census>(total_.vm_, total_.options_);
	p->collect_ = total_.collect_;
	p->top_.raise_floor(top_floor_);
	p->top_strings_.raise_floor(top_strings_floor_);
	return p;
}

void StringBatches::done(uint64_t index, std::unique_ptr<Census> part, bool completed)
{
	std::lock_guard lock(mutex_);
	done_[index] = {std::move(part), completed};
	for (auto it = done_.find(added_); it != done_.end(); it = done_.find(added_)) {
		if (!halted_) {
			total_.add_batch(*it->second.part);
			halted_ = !it->second.completed;
			top_floor_ = total_.top_.floor();
			top_strings_floor_ = total_.top_strings_.floor();
		}
		done_.erase(it);
		added_++;
	}
}

void Census::add_batch(Census &part)
{
	GcTypeStats &mine = out_.types[size_t(GcType::string)];
	const GcTypeStats &theirs = part.out_.types[size_t(GcType::string)];
	mine.count += theirs.count;
	mine.bytes += theirs.bytes;
	GcStringTable &st = out_.strings;
	st.used += part.out_.strings.used;
	st.longest = std::max(st.longest, part.out_.strings.longest);
	st.strings += part.out_.strings.strings;
	st.chains_whole = st.chains_whole && part.out_.strings.chains_whole;
	st.bytes = mine.bytes;
	objects_.insert(objects_.end(), part.objects_.begin(), part.objects_.end());
	// The part listed its first implausible objects first, then maybe
	// the problem that ended it: of the former, only as many as this
	// census has room left for.
	uint64_t implausible_listed = std::min(part.implausible_, max_listed_implausible);
	std::vector<std::string> problems = part.out_.diagnostics.problems();
	for (size_t i = 0; i < problems.size(); i++)
		if (i >= implausible_listed || implausible_ + i < max_listed_implausible)
			problem(std::move(problems[i]));
	implausible_ += part.implausible_;
	for (const Ranked &r : part.top_.largest_first())
		top_.offer(r.bytes, r.addr, r.type);
	for (const Ranked &r : part.top_strings_.largest_first())
		top_strings_.offer(r.bytes, r.addr, r.type);
}

} // namespace ljcore::gc
