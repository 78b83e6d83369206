// read_small_file: whole files of /proc and settings, errors as values.
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <unistd.h>

#include "readers/small_file.h"

using namespace ljcore;

TEST_CASE("small file: /proc/self/stat is read whole")
{
	auto text = read_small_file("/proc/self/stat");
	REQUIRE(text.has_value());
	CHECK(text->starts_with(std::to_string(getpid()) + " ("));
	CHECK(text->ends_with("\n"));
}

TEST_CASE("small file: max bytes read, one more refused")
{
	std::string path = std::string(P_tmpdir) + "/ljcore-test-small-file.XXXXXX";
	int fd = mkstemp(path.data());
	REQUIRE(fd >= 0);
	const std::string bytes(5000, 'x');
	REQUIRE(write(fd, bytes.data(), bytes.size()) == ssize_t(bytes.size()));
	close(fd);
	auto whole = read_small_file(path, 5000);
	REQUIRE(whole.has_value());
	CHECK(whole->size() == 5000);
	auto cut = read_small_file(path, 4999);
	REQUIRE_FALSE(cut.has_value());
	CHECK(cut.error().message == path + ": larger than 4999 bytes");
	std::remove(path.c_str());
}

TEST_CASE("small file: a missing file and a symlink are errors naming the path")
{
	auto missing = read_small_file("/proc/self/no-such-file");
	REQUIRE_FALSE(missing.has_value());
	CHECK(missing.error().message == "/proc/self/no-such-file: No such file or directory");
	// /proc/self/exe is a symlink: never followed.
	auto link = read_small_file("/proc/self/exe");
	REQUIRE_FALSE(link.has_value());
	CHECK(link.error().message.starts_with("/proc/self/exe: "));
}
