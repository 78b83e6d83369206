// The bytes of a core file: the file itself, mapped, or, for cores that
// systemd-coredump stored compressed (zstd, xz or lz4, told by their
// magic bytes, not their name), the decompressed content. The path "-" is
// standard input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "readers/error.h"

namespace ljcore {

class CoreImage {
public:
	static Expected<std::unique_ptr<CoreImage>> open(const std::string &path);
	~CoreImage();
	CoreImage(const CoreImage &) = delete;
	CoreImage &operator=(const CoreImage &) = delete;

	const std::byte *data() const { return data_; }
	size_t size() const { return size_; }
	bool decompressed() const { return decompressed_; }
	// Calls visit(offset, size) for each part of the bytes [offset,
	// offset + size) that the file holds as data, in order. A kernel core
	// is a sparse file whose holes are the pages the process never
	// touched: they read as zeros, but reading them makes the kernel fill
	// a page of zeros for each (a second per GB). Where the file system
	// cannot tell, or the core was decompressed, the whole range.
	void visit_data(uint64_t offset, uint64_t size,
			const std::function<void(uint64_t, uint64_t)> &visit) const;

private:
	CoreImage() = default;
	std::byte *data_ = nullptr;
	size_t size_ = 0;   // bytes of the core
	size_t mapped_ = 0; // bytes of the mapping that holds them
	bool decompressed_ = false;
	int fd_ = -1; // the mapped file's, for its holes; -1 once decompressed
};

} // namespace ljcore
