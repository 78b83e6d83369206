// The bytes of a core file: the file itself, mapped, or, for cores that
// systemd-coredump stored compressed (zstd, xz or lz4, told by their
// magic bytes, not their name), the decompressed content. The path "-" is
// standard input.
#pragma once

#include <cstddef>
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

private:
	CoreImage() = default;
	std::byte *data_ = nullptr;
	size_t size_ = 0;   // bytes of the core
	size_t mapped_ = 0; // bytes of the mapping that holds them
	bool decompressed_ = false;
};

} // namespace ljcore
