// The layout deriver alone (analyzer/derive/): the input as a LuaJIT
// binary whose exported functions' code is read for offsets. Whatever the
// bytes, it derives or says "could not derive: why"; it never reads past
// the input, never loops without end.
#include <cstddef>
#include <cstdint>

#include <libelf.h>

#include "analyzer/derive/derive_layout.h"

using namespace ljcore;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const bool ready = elf_version(EV_CURRENT) != EV_NONE;
	if (!ready)
		return 0;
	// libelf's memory interface does not write to the image it reads.
	Elf *elf = elf_memory(reinterpret_cast<char *>(const_cast<uint8_t *>(data)), size);
	auto derived = derive_layout(elf);
	if (derived)
		(void)nearest_tables({}, *derived);
	if (elf)
		elf_end(elf);
	return 0;
}
