// Hostile or broken input files: ljcore must say what is wrong, not crash.
#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "analyzer/analyze.h"

using namespace ljcore;

namespace {

std::string write_temp(const std::string &name, const std::string &bytes)
{
	std::string path = std::string(P_tmpdir) + "/ljcore-test-" + name;
	std::ofstream(path, std::ios::binary) << bytes;
	return path;
}

std::string analyze_error(const std::string &path)
{
	auto r = analyze_core(path, {});
	REQUIRE_FALSE(r.has_value());
	return r.error().message;
}

} // namespace

TEST_CASE("a missing file is reported with its path")
{
	CHECK(analyze_error("/nonexistent/core.1").find("/nonexistent/core.1: No such file") !=
	      std::string::npos);
}

TEST_CASE("an empty file is refused")
{
	CHECK(analyze_error(write_temp("empty", "")).find("empty file") != std::string::npos);
}

TEST_CASE("a file that is not ELF is refused")
{
	std::string msg = analyze_error(write_temp("garbage", std::string(4096, 'x')));
	CHECK(msg.find("not an ELF file") != std::string::npos);
}

TEST_CASE("an ELF file that is not a core is refused")
{
	// This test program itself is an ELF executable, not a core.
	std::string msg = analyze_error("/proc/self/exe");
	CHECK(msg.find("not a core") != std::string::npos);
}

TEST_CASE("a core cut inside its program headers is refused, not misread")
{
	// An ELF header of a core that promises program headers past the end.
	std::string ehdr(64, '\0');
	const unsigned char ident[] = {0x7f, 'E', 'L', 'F', 2, 1, 1};
	ehdr.replace(0, sizeof ident, reinterpret_cast<const char *>(ident), sizeof ident);
	ehdr[16] = 4;   // e_type = ET_CORE
	ehdr[18] = 62;  // e_machine = EM_X86_64
	ehdr[20] = 1;   // e_version
	ehdr[32] = 64;  // e_phoff
	ehdr[52] = 64;  // e_ehsize
	ehdr[54] = 56;  // e_phentsize
	ehdr[56] = 100; // e_phnum, none of them present
	std::string msg = analyze_error(write_temp("cut", ehdr));
	CHECK(msg.find("program header") != std::string::npos);
}

TEST_CASE("a corrupt zstd core is refused with zstd's reason")
{
	std::string bytes = "\x28\xb5\x2f\xfd" + std::string(64, '\xff');
	CHECK(analyze_error(write_temp("bad.zst", bytes)).find("zstd") != std::string::npos);
}
