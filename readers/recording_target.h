// A target that remembers which pages were read through it, so that a
// snapshot can keep exactly the memory an analysis needs; optionally also
// which 4-byte words of them, for snapshots that keep only those bytes
// (that fine: of a GC object the census reads a field or two, and a
// string's hash next to its length would be kept for nothing).
#pragma once

#include <set>

#include "readers/target.h"

namespace ljcore {

class RecordingTarget final : public Target {
public:
	static constexpr uint64_t page_size = 4096;
	static constexpr uint64_t word_size = 4;

	explicit RecordingTarget(const Target &inner, bool record_words = false)
	    : inner_(inner), record_words_(record_words)
	{
	}

	std::expected<void, ReadMiss> read(uint64_t addr, std::span<std::byte> out) const override
	{
		note(addr, out.size());
		return inner_.read(addr, out);
	}
	Arch arch() const override { return inner_.arch(); }
	const ProcessInfo &process() const override { return inner_.process(); }
	const std::optional<SignalInfo> &signal() const override { return inner_.signal(); }
	const std::vector<ThreadInfo> &threads() const override { return inner_.threads(); }
	// Scans look at everything; what they find is read again through
	// read() and recorded then.
	void visit_writable(const Visitor &visit) const override { inner_.visit_writable(visit); }
	bool writable(uint64_t addr) const override { return inner_.writable(addr); }
	const Diagnostics &diagnostics() const override { return inner_.diagnostics(); }
	std::vector<FileStatus> file_statuses() const override { return inner_.file_statuses(); }

	// Page numbers (address / page_size) read so far.
	const std::set<uint64_t> &pages() const { return pages_; }
	// Word numbers (address / word_size) read so far, if recorded.
	const std::set<uint64_t> &words() const { return words_; }
	void add_range(uint64_t addr, uint64_t size) { note(addr, size); }
	// What another reading of the same memory read.
	void add(const std::set<uint64_t> &pages, const std::set<uint64_t> &words)
	{
		pages_.insert(pages.begin(), pages.end());
		if (record_words_)
			words_.insert(words.begin(), words.end());
	}

private:
	void note(uint64_t addr, uint64_t size) const
	{
		if (!size)
			return;
		for (uint64_t p = addr / page_size; p <= (addr + size - 1) / page_size; p++)
			pages_.insert(p);
		if (record_words_)
			for (uint64_t w = addr / word_size; w <= (addr + size - 1) / word_size; w++)
				words_.insert(w);
	}

	const Target &inner_;
	const bool record_words_;
	mutable std::set<uint64_t> pages_;
	mutable std::set<uint64_t> words_;
};

} // namespace ljcore
