// A target that remembers which pages were read through it, so that a
// snapshot can keep exactly the memory an analysis needs; optionally also
// which 64-byte lines of them, for snapshots that keep only those bytes.
#pragma once

#include <set>

#include "readers/target.h"

namespace ljcore {

class RecordingTarget final : public Target {
public:
	static constexpr uint64_t page_size = 4096;
	static constexpr uint64_t line_size = 64;

	explicit RecordingTarget(const Target &inner, bool record_lines = false)
	    : inner_(inner), record_lines_(record_lines)
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
	std::vector<std::string> warnings() const override { return inner_.warnings(); }
	std::vector<FileStatus> file_statuses() const override { return inner_.file_statuses(); }

	// Page numbers (address / page_size) read so far.
	const std::set<uint64_t> &pages() const { return pages_; }
	// Line numbers (address / line_size) read so far, if recorded.
	const std::set<uint64_t> &lines() const { return lines_; }
	void add_range(uint64_t addr, uint64_t size) { note(addr, size); }

private:
	void note(uint64_t addr, uint64_t size) const
	{
		if (!size)
			return;
		for (uint64_t p = addr / page_size; p <= (addr + size - 1) / page_size; p++)
			pages_.insert(p);
		if (record_lines_)
			for (uint64_t l = addr / line_size; l <= (addr + size - 1) / line_size; l++)
				lines_.insert(l);
	}

	const Target &inner_;
	const bool record_lines_;
	mutable std::set<uint64_t> pages_;
	mutable std::set<uint64_t> lines_;
};

} // namespace ljcore
