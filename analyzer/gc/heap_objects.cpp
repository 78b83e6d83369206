#include "analyzer/gc/heap_objects.h"

#include <algorithm>
#include <bit>
#include <utility>

namespace ljcore::gc {

namespace {

// Sorts keys by their offset from the lowest, 11 bits a pass (a radix
// sort: millions of addresses in a few linear passes, where std::sort
// took a seventh of gc --retained).
template <typename T> void radix_sort(BigArray<T> &keys)
{
	if (keys.size() < 2)
		return;
	auto [lo, hi] = std::minmax_element(keys.begin(), keys.end());
	const T base = *lo, span = *hi - *lo;
	constexpr unsigned bits = 11;
	BigArray<T> other(keys.size());
	std::vector<size_t> counts(size_t(1) << bits);
	for (unsigned shift = 0; shift < 8 * sizeof(T) && (span >> shift); shift += bits) {
		std::fill(counts.begin(), counts.end(), 0);
		for (T k : keys)
			counts[((k - base) >> shift) & (counts.size() - 1)]++;
		size_t at = 0;
		for (size_t &c : counts)
			at += std::exchange(c, at);
		for (T k : keys)
			other[counts[((k - base) >> shift) & (counts.size() - 1)]++] = k;
		keys.swap(other);
	}
}

// Runs of keys in order, ascending or descending, that merge_runs takes
// rather than a radix sort: a walk of LuaJIT's lists comes in few of them
// (g->gc.root holds the newest object first, so a heap built in one go is
// one descending run, and the string table's chains another).
constexpr size_t max_merged_runs = 8;

// Sorts keys made of at most max_merged_runs runs in order by reversing
// the descending ones and merging them; false, keys untouched, if there
// are more.
template <typename T> bool merge_runs(BigArray<T> &keys)
{
	std::vector<size_t> starts{0};
	for (size_t i = 1; i < keys.size(); i++) {
		const size_t first = starts.back();
		const bool descending = i - first > 1 && keys[first + 1] < keys[first];
		if (i - first > 1 && (descending ? keys[i] > keys[i - 1] : keys[i] < keys[i - 1])) {
			if (starts.size() == max_merged_runs)
				return false;
			starts.push_back(i);
		}
	}
	starts.push_back(keys.size());
	for (size_t r = 0; r + 1 < starts.size(); r++)
		if (starts[r + 1] - starts[r] > 1 && keys[starts[r] + 1] < keys[starts[r]])
			std::reverse(keys.begin() + starts[r], keys.begin() + starts[r + 1]);
	// Neighbouring runs merged pairwise until one is left.
	while (starts.size() > 2) {
		std::vector<size_t> merged{0};
		for (size_t r = 0; r + 2 < starts.size(); r += 2) {
			std::inplace_merge(keys.begin() + starts[r], keys.begin() + starts[r + 1],
					   keys.begin() + starts[r + 2]);
			merged.push_back(starts[r + 2]);
		}
		if (merged.back() != keys.size())
			merged.push_back(keys.size());
		starts.swap(merged);
	}
	return true;
}

template <typename T> void sort_unique(BigArray<T> &keys)
{
	if (!merge_runs(keys))
		radix_sort(keys);
	keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
	if (keys.size() >= HeapObjects::none)
		keys.resize(HeapObjects::none - 1);
}

} // namespace

// A word of bits and its count cover 512 bytes of the heap in 12 bytes:
// used where that is at most this many bytes an object (a heap of small
// objects has one every 50 to 100 bytes; one spread thin is sorted).
constexpr uint64_t max_dense_bytes_per_object = 3;

bool HeapObjects::pack_dense(const BigArray<uint64_t> &addrs, uint64_t span)
{
	const uint64_t words = (span >> (align_bits + 6)) + 1;
	if (words * 12 > addrs.size() * max_dense_bytes_per_object)
		return false;
	starts_.assign(words, 0);
	for (uint64_t a : addrs) {
		const uint64_t unit = (a - base_) >> align_bits;
		starts_[unit >> 6] |= uint64_t(1) << (unit & 63);
	}
	ones_before_.resize(words);
	uint64_t ones = 0;
	for (uint64_t w = 0; w < words; w++) {
		ones_before_[w] = uint32_t(ones);
		ones += count_ones(starts_[w]);
	}
	if (ones >= none) { // more than a heap can hold: sorted and cut
		BigArray<uint64_t>().swap(starts_);
		BigArray<uint32_t>().swap(ones_before_);
		return false;
	}
	packed_.resize(ones);
	size_t i = 0;
	for (uint64_t w = 0; w < words; w++)
		for (uint64_t bits = starts_[w]; bits; bits &= bits - 1)
			packed_[i++] = uint32_t(w * 64 + uint64_t(std::countr_zero(bits)));
	return true;
}

// Packed first when they can be, then sorted: half the bytes to move.
// About eight objects a bucket where the heap is dense (half a byte an
// object: a lookup is three more comparisons); a heap spread over distant
// mappings gets its clusters into fewer buckets, still found by a binary
// search within the bucket.
HeapObjects::HeapObjects(BigArray<uint64_t> addrs)
{
	if (addrs.empty())
		return;
	auto [lo, hi] = std::minmax_element(addrs.begin(), addrs.end());
	base_ = *lo;
	const uint64_t span = *hi - *lo;
	bool packable = (span >> align_bits) <= UINT32_MAX;
	for (size_t i = 0; packable && i < addrs.size(); i++)
		packable = !((addrs[i] - base_) & align);
	if (packable && pack_dense(addrs, span))
		return;
	if (packable) {
		packed_.resize(addrs.size());
		for (size_t i = 0; i < addrs.size(); i++)
			packed_[i] = uint32_t((addrs[i] - base_) >> align_bits);
		BigArray<uint64_t>().swap(addrs);
		sort_unique(packed_);
	} else {
		addrs_ = std::move(addrs);
		sort_unique(addrs_);
	}
	uint64_t want = std::max<uint64_t>(size() / 8, 1024);
	while ((span >> shift_) >= want)
		shift_++;
	buckets_.assign((span >> shift_) + 2, 0);
	for (uint32_t i = 0; i < size(); i++)
		buckets_[((address(i) - base_) >> shift_) + 1]++;
	for (size_t b = 1; b < buckets_.size(); b++)
		buckets_[b] += buckets_[b - 1];
}

} // namespace ljcore::gc
