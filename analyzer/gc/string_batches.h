// Strings hang off the string table's chains only, never off the object
// list (lj_str.c), so the two walks share nothing but the memory they read.
// Where that memory can be read from two threads, the string table is
// walked beside the lists: both wait on memory, on two CPUs.
// The string table walked a batch of buckets at a time by every thread
// free to: the string thread from the start, the census's own once the
// object lists are done. Batches are added to the total in their order,
// so the result, problems and where a corrupt chain stops the walk
// included, is the one a single thread walking them in order gives.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>

#include "analyzer/gc/census.h"

namespace ljcore::gc {

class StringBatches {
public:
	// The more strings a batch has, the fewer a page of the heap it
	// visits a round has to itself: at 30 M strings, batches of 4 M
	// buckets took 0.74 of the time of 1 M ones; a batch's arrays take
	// about 8 bytes a bucket, and one per thread.
	static constexpr uint64_t buckets_per_batch = 1 << 22;

	StringBatches(Census &total, uint64_t tab)
	    : total_(total), tab_(tab), buckets_(total.out_.strings.buckets),
	      count_((buckets_ + buckets_per_batch - 1) / buckets_per_batch)
	{
	}

	// Walks batches until none is left to claim.
	void work();

private:
	// The next batch to walk, its first bucket and size; false when none is left.
	bool claim(uint64_t &index, uint64_t &first, uint64_t &n);
	// A census for the next batch. It starts from the sizes the largest
	// objects and strings found so far already exceed: a fresh list of
	// the largest would take in most of a batch's strings before its
	// threshold rose, where the total's is already high.
	std::unique_ptr<Census> part() const;
	// A walked batch: added to the total with every batch before it that
	// is done, unless a problem before it ended the walk.
	void done(uint64_t index, std::unique_ptr<Census> part, bool completed);

	struct Walked {
		std::unique_ptr<Census> part;
		bool completed;
	};
	Census &total_;
	const uint64_t tab_, buckets_, count_;
	std::atomic<uint64_t> next_{0};
	std::atomic<bool> halted_{false};
	std::atomic<uint64_t> top_floor_{0}, top_strings_floor_{0};
	std::mutex mutex_;
	uint64_t added_ = 0;              // batches [0, added_) are in the total
	std::map<uint64_t, Walked> done_; // walked, waiting for those before
};

} // namespace ljcore::gc
