// The few file operations ljcore catch needs, done the careful way a
// handler running as root must: new files only (O_CREAT|O_EXCL), never
// through a symlink (O_NOFOLLOW), 0600, relative to directories already
// open.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "readers/error.h"
#include "readers/small_file.h"

namespace ljcore::catching {

// Creates name in dirfd (mode 0600) and writes bytes; a short write (a
// full disk, the size cap) removes it again.
Expected<void> write_new_file(int dirfd, const std::string &name, std::span<const std::byte> bytes);
Expected<void> write_new_file(int dirfd, const std::string &name, std::string_view text);

// Writes text to an existing file such as /proc/sys/kernel/core_pattern.
Expected<void> write_existing_file(const std::string &path, std::string_view text);

// Removes the crash directory name in dirfd and the files in it (crash
// directories hold files only).
void remove_crash_dir(int dirfd, const std::string &name);

// The bytes the files of the crash directory name hold.
uint64_t crash_dir_bytes(int dirfd, const std::string &name);

} // namespace ljcore::catching
