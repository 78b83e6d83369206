// Runs a harness on saved inputs (files, or every file of directories)
// without libFuzzer: the regression inputs' test in gcc builds.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

namespace fs = std::filesystem;

namespace {

void replay(const fs::path &p)
{
	std::ifstream in(p, std::ios::binary);
	std::vector<uint8_t> bytes{std::istreambuf_iterator<char>(in), {}};
	std::printf("%s: %zu bytes\n", p.c_str(), bytes.size());
	LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
}

} // namespace

int main(int argc, char **argv)
{
	size_t n = 0;
	for (int i = 1; i < argc; ++i) {
		if (!fs::is_directory(argv[i])) {
			replay(argv[i]);
			++n;
			continue;
		}
		for (auto &e : fs::directory_iterator(argv[i]))
			if (e.is_regular_file()) {
				replay(e.path());
				++n;
			}
	}
	std::printf("%zu inputs, none crashed\n", n);
	return 0;
}
