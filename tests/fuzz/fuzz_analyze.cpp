// The whole analysis of a core held in memory: VM locator and scan, Lua
// stack walker, symbolizer, every coroutine, traces with their machine
// code, GC census and paths.
#include <cstddef>
#include <cstdint>

#include "tests/fuzz/fuzz_options.h"
#include "tests/fuzz/memfd_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ljcore::fuzz::MemfdFile file(data, size);
	(void)ljcore::analyze_core(file.path(), ljcore::fuzz::everything());
	return 0;
}
