// The fuzzer's input as a file: ElfCore opens cores by path, and a memfd
// gives it one (/proc/self/fd/N) that lives in memory, not on disk.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace ljcore::fuzz {

class MemfdFile {
public:
	MemfdFile(const uint8_t *data, size_t size);
	~MemfdFile();
	MemfdFile(const MemfdFile &) = delete;
	MemfdFile &operator=(const MemfdFile &) = delete;

	const std::string &path() const { return path_; }

private:
	int fd_ = -1;
	std::string path_;
};

} // namespace ljcore::fuzz
