// Chunks of work shared by this thread and one more: each takes the next
// chunk no one has taken until none is left, so a chunk that costs a
// thousand times the others (a table of millions of slots among small
// ones) holds up one thread, not the other's share too. What a chunk
// finds goes into its own place, for the caller to add up in order.
#pragma once

#include <atomic>
#include <cstddef>
#include <exception>
#include <thread>

namespace ljcore::gc {

// work(chunk, worker) for chunk 0 .. chunks - 1, worker 0 on this thread
// and 1 on the other; all on this thread unless two (and there are two
// chunks at least). Returns when all are done; rethrows what a chunk threw.
template <typename Work> void share_chunks(size_t chunks, bool two, Work &&work)
{
	std::atomic<size_t> next{0};
	auto take = [&](unsigned worker) {
		for (size_t c; (c = next++) < chunks;)
			work(c, worker);
	};
	if (!two || chunks < 2) {
		take(0);
		return;
	}
	std::exception_ptr error;
	{
		// Joined on every way out, this thread's exception included.
		std::jthread other([&] {
			try {
				take(1);
			} catch (...) {
				error = std::current_exception();
			}
		});
		take(0);
	}
	if (error)
		std::rethrow_exception(error);
}

} // namespace ljcore::gc
