// ljcore catch's pieces that need no kernel: the core_pattern it installs
// (which the kernel cuts at 127 bytes and splits at spaces), the names of
// crash directories (comm is whatever the process set), its settings, and
// what --redact zeros in a snapshot.
#include <doctest/doctest.h>

#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <string>
#include <unistd.h>

#include "cli/catch/crash_dir.h"
#include "cli/catch/files.h"
#include "cli/catch/install.h"
#include "cli/catch/redact.h"
#include "cli/catch/settings.h"

using namespace ljcore;
using namespace ljcore::catching;

TEST_CASE("catch: core_pattern runs ljcore with the kernel's arguments, then the previous "
	  "handler's")
{
	CHECK(handler_pattern("/usr/bin/ljcore", "/var/lib/ljcore/crashes", "") ==
	      "|/usr/bin/ljcore catch --handle=/var/lib/ljcore/crashes -- %P %p %s %c");
	// systemd's own line: its arguments follow, for the kernel to expand.
	CHECK(handler_pattern("/usr/bin/ljcore", "/c",
			      "|/usr/lib/systemd/systemd-coredump %P %u %g %s %t %c %h") ==
	      "|/usr/bin/ljcore catch --handle=/c -- %P %p %s %c "
	      "/usr/lib/systemd/systemd-coredump %P %u %g %s %t %c %h");
	CHECK(handler_pattern("/l", "/c", "| /bin/handler %p") ==
	      "|/l catch --handle=/c -- %P %p %s %c /bin/handler %p");
	// A file pattern is passed as the name to write.
	CHECK(handler_pattern("/l", "/c", "core.%e.%p") ==
	      "|/l catch --handle=/c -- %P %p %s %c core.%e.%p");
}

TEST_CASE("catch: crash directory names sort by time and hold no path")
{
	CHECK(utc_stamp(0) == "19700101T000000Z");
	CHECK(utc_stamp(1764105153) == "20251125T211233Z");
	CHECK(file_name_safe("luajit") == "luajit");
	CHECK(file_name_safe("nginx: worker") == "nginx__worker");
	CHECK(file_name_safe("../../etc") == "_.._.._etc");
	CHECK(file_name_safe("") == "_");
	CHECK(file_name_safe(std::string("a\0b\n", 4)) == "a_b_");
}

TEST_CASE("catch: settings are kept and read back; bad values are refused")
{
	char dir[] = "/tmp/ljcore-catch-unit.XXXXXX";
	REQUIRE(mkdtemp(dir));
	Settings s;
	s.dir = dir;
	s.keep_core = KeepCore::lua;
	s.chain = true;
	s.size_cap = 1234;
	s.quota = 5678;
	s.rate = 3;
	s.deadline_seconds = 7;
	s.redact = true;
	const std::string conf = std::string(dir) + "/" + settings_file;
	REQUIRE(write_new_file(AT_FDCWD, conf, settings_text(s)).has_value());
	auto back = read_settings(dir);
	REQUIRE(back.has_value());
	CHECK(back->keep_core == KeepCore::lua);
	CHECK(back->chain);
	CHECK(back->size_cap == 1234);
	CHECK(back->quota == 5678);
	CHECK(back->rate == 3);
	CHECK(back->deadline_seconds == 7);
	CHECK(back->redact);
	unlink(conf.c_str());
	REQUIRE(write_new_file(AT_FDCWD, conf, std::string_view("rate=lots\n")).has_value());
	CHECK_FALSE(read_settings(dir).has_value());
	unlink(conf.c_str());
	rmdir(dir);
	CHECK_FALSE(keep_core_named("sometimes").has_value());
}

namespace {

CorePiece piece_of(uint64_t vaddr, std::string_view text)
{
	CorePiece p;
	p.vaddr = vaddr;
	for (char c : text)
		p.bytes.push_back(std::byte(c));
	return p;
}

std::string text_of(const CorePiece &p)
{
	std::string s;
	for (std::byte b : p.bytes)
		s += b == std::byte{0} ? '.' : char(b);
	return s;
}

} // namespace

TEST_CASE("catch --redact: every copy of a redacted string is zeros in the snapshot's memory")
{
	Redaction r;
	r.texts = {"SECRET_1", "ET_1_AND"};
	std::vector<CorePiece> pieces = {piece_of(0x1000, "xSECRET_1_ANDySECRET_1"),
					 piece_of(0x2000, "SECRET_")};
	scrub(pieces, r);
	// Overlapping copies are both zeroed; a text cut by the piece's end
	// is no copy (memory past it is not in the snapshot).
	CHECK(text_of(pieces[0]) == "x............y........");
	CHECK(text_of(pieces[1]) == "SECRET_");
}

TEST_CASE("catch --redact: a string object's bytes are zeros, whatever its range claims")
{
	Redaction r;
	r.objects = {{0x1002, 4}, {0x0ff0, 0x12}, {UINT64_MAX - 1, UINT64_MAX}, {0x1000, 0}};
	std::vector<CorePiece> pieces = {piece_of(0x1000, "abcdefgh")};
	scrub(pieces, r);
	CHECK(text_of(pieces[0]) == "......gh");
}

TEST_CASE("catch --redact: an nginx request is zeros from its request line to its headers' end")
{
	Redaction r;
	r.requests = {"GET /"};
	using namespace std::string_literals;
	std::vector<CorePiece> pieces = {
		piece_of(0x1000, "....GET / HTTP/1.1\r\nX-Key: k\r\n\r\nbody"),
		// As nginx leaves it: a NUL after each header's name and value.
		piece_of(0x2000, "GET / HTTP/1.1\r\nX-Key\0 k\0\n\r\nbody"s),
		// No empty line, or a control byte before it: not nginx's buffer.
		piece_of(0x3000, "..GET / HTTP/1.1\r\nX-Key: k"),
		piece_of(0x4000, "GET / HTTP/1.1\x04\r\n\r\n")};
	scrub(pieces, r);
	CHECK(text_of(pieces[0]) == std::string(32, '.') + "body");
	CHECK(text_of(pieces[1]) == std::string(28, '.') + "body");
	CHECK(text_of(pieces[2]) == "..GET / HTTP/1.1\r\nX-Key: k");
	CHECK(text_of(pieces[3]) == "GET / HTTP/1.1\x04\r\n\r\n");
}

TEST_CASE("catch: the rate counts a burst's crashes whatever order their handlers lock in")
{
	char dir[] = "/tmp/ljcore-rate-XXXXXX";
	REQUIRE(mkdtemp(dir));
	{
		auto crashes = CrashDir::open(dir);
		REQUIRE(crashes);
		// Ten handlers of crashes at 100 and 101 s, locking out of
		// order: five of them are reported, the rest suppressed.
		unsigned admitted = 0;
		for (time_t t : {101, 100, 101, 100, 100, 101, 100, 101, 100, 101})
			admitted += crashes->admit("/bin/x", 5, t);
		CHECK(admitted == 5);
		// A minute after the first, a new window opens, and a crash a
		// second before it counts in it.
		admitted = 0;
		for (time_t t : {161, 160, 161, 160, 162, 160})
			admitted += crashes->admit("/bin/x", 5, t);
		CHECK(admitted == 5);
		// A clock set back by more than a minute opens one too.
		CHECK(crashes->admit("/bin/x", 5, 30));
	}
	std::filesystem::remove_all(dir);
}
