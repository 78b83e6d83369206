#include "analyzer/gc/big_array.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <mutex>

namespace ljcore::gc {

namespace {

// Freed arrays, kept mapped for the next ones: the phases of gc --retained
// free arrays of an element an object and make others of the same length
// at once, and memory the process touched before costs no page fault (in
// a VM a first touch costs the host's fault too, and those were a quarter
// of gc --retained's time). The part of a spare a new array does not need
// stays spare; what was never touched is address space, no memory.
struct Spares {
	struct Range {
		char *addr;
		size_t size;
	};
	// Past this many, the smallest is given back.
	static constexpr size_t max_kept = 32;
	std::mutex mutex;
	std::vector<Range> kept;
};
Spares spares;

size_t page_size()
{
	static const size_t size = size_t(sysconf(_SC_PAGESIZE));
	return size;
}

size_t mapped_bytes(size_t bytes)
{
	return (bytes + page_size() - 1) & ~(page_size() - 1);
}

} // namespace

void *map_big_array(size_t bytes)
{
	const size_t size = mapped_bytes(bytes);
	if (size < bytes)
		throw std::bad_alloc();
	{
		std::lock_guard lock(spares.mutex);
		auto &kept = spares.kept;
		// The smallest that fits.
		auto best = kept.end();
		for (auto it = kept.begin(); it != kept.end(); ++it)
			if (it->size >= size && (best == kept.end() || it->size < best->size))
				best = it;
		if (best != kept.end()) {
			char *array = best->addr;
			if (best->size > size)
				*best = {array + size, best->size - size};
			else
				kept.erase(best);
			return array;
		}
	}
	void *p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		throw std::bad_alloc();
	return p;
}

void unmap_big_array(void *p, size_t bytes)
{
	std::lock_guard lock(spares.mutex);
	auto &kept = spares.kept;
	try {
		kept.push_back({static_cast<char *>(p), mapped_bytes(bytes)});
	} catch (const std::bad_alloc &) {
		munmap(p, mapped_bytes(bytes));
		return;
	}
	if (kept.size() > Spares::max_kept) {
		auto smallest = std::min_element(kept.begin(), kept.end(),
						 [](auto &a, auto &b) { return a.size < b.size; });
		munmap(smallest->addr, smallest->size);
		kept.erase(smallest);
	}
}

} // namespace ljcore::gc
