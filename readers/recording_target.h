// A target that remembers which pages were read through it, so that a
// snapshot can keep exactly the memory an analysis needs.
#pragma once

#include <set>

#include "readers/target.h"

namespace ljcore {

class RecordingTarget final : public Target {
public:
	static constexpr uint64_t page_size = 4096;

	explicit RecordingTarget(const Target &inner) : inner_(inner) {}

	std::expected<void, ReadMiss> read(uint64_t addr, std::span<std::byte> out) const override
	{
		if (!out.empty())
			for (uint64_t p = addr / page_size;
			     p <= (addr + out.size() - 1) / page_size; p++)
				pages_.insert(p);
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
	void add_range(uint64_t addr, uint64_t size)
	{
		for (uint64_t p = addr / page_size; size && p <= (addr + size - 1) / page_size; p++)
			pages_.insert(p);
	}

private:
	const Target &inner_;
	mutable std::set<uint64_t> pages_;
};

} // namespace ljcore
