// Hostile input, made from a real core: flip bytes where the Lua walk reads
// (the Lua stack, the native stack) and anywhere else, and cut the file at
// random lengths. Every run must end with a result or an error value: no
// crash (ASan/UBSan builds run this too), no hang (CTest's timeout).
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include <elf.h>
#include <unistd.h>

#include "analyzer/analyze.h"

using namespace ljcore;

namespace {

struct Range {
	uint64_t vaddr, offset, size;
};

std::vector<Range> load_segments(const std::string &bytes)
{
	std::vector<Range> out;
	Elf64_Ehdr eh;
	memcpy(&eh, bytes.data(), sizeof eh);
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		Elf64_Phdr ph;
		memcpy(&ph, bytes.data() + eh.e_phoff + i * sizeof ph, sizeof ph);
		if (ph.p_type == PT_LOAD && ph.p_filesz)
			out.push_back({ph.p_vaddr, ph.p_offset, ph.p_filesz});
	}
	return out;
}

// File offset of a target address, or npos when the core lacks it.
size_t file_offset(const std::vector<Range> &segs, uint64_t addr)
{
	for (auto &s : segs)
		if (addr >= s.vaddr && addr - s.vaddr < s.size)
			return size_t(s.offset + (addr - s.vaddr));
	return std::string::npos;
}

} // namespace

int main(int argc, char **argv)
{
	if (argc != 4 && argc != 5) {
		fprintf(stderr, "usage: %s CORE EXE ITERATIONS [SYSROOT]\n", argv[0]);
		return 2;
	}
	std::ifstream in(argv[1], std::ios::binary);
	if (!in) {
		printf("skip: %s does not exist (run tools/make-cores.sh)\n", argv[1]);
		return 77;
	}
	std::string original((std::istreambuf_iterator<char>(in)), {});
	AnalyzeOptions opts;
	opts.lookup.exe = argv[2];
	if (argc == 5)
		opts.lookup.sysroot = argv[4];
	// Walk every coroutine too: the GC object list is one more chain that
	// mutations can make cyclic or point anywhere.
	opts.all_coroutines = true;
	// And the GC heap census with its path search: every object, every
	// table slot is hostile input too.
	opts.gc = GcCensusOptions{.top = 10, .top_strings = 5, .paths = true};
	// And the JIT's traces with their machine code through the
	// disassembler: IR, snapshot maps and code lengths are counts and
	// offsets read from the core.
	opts.traces = true;
	opts.mcode = true;
	int iterations = std::stoi(argv[3]);

	auto base = analyze_core(argv[1], opts);
	if (!base || base->vms.empty() || base->vms[0].stack.frames.empty()) {
		fprintf(stderr, "the unmodified core does not analyze cleanly\n");
		return 1;
	}
	// Where the walk reads: the Lua frames' slots and the crashed
	// thread's native stack (cframes live there).
	std::vector<uint64_t> hot;
	for (auto &f : base->vms[0].stack.frames) {
		hot.push_back(f.slot);
		hot.push_back(f.function);
	}
	for (auto &f : base->threads[0].frames)
		hot.push_back(f.pc);
	auto segs = load_segments(original);

	std::mt19937_64 rng(20261122);
	// One file per process: tests run in parallel, and a core that shrinks
	// under a reader's mapping would fault it (SIGBUS), not test it.
	std::string path =
		std::string(P_tmpdir) + "/ljcore-mutated-" + std::to_string(getpid()) + ".core";
	int errors = 0, partial = 0, same = 0, changed = 0;
	for (int i = 0; i < iterations; i++) {
		std::string bytes = original;
		int kind = int(rng() % 3);
		if (kind == 0) {
			// Truncate somewhere (keeps at least the ELF header).
			bytes.resize(64 + rng() % (bytes.size() - 64));
		} else {
			int flips = 1 + int(rng() % 32);
			for (int k = 0; k < flips; k++) {
				size_t off;
				if (kind == 1) {
					uint64_t a = hot[rng() % hot.size()] + (rng() % 256) - 128;
					off = file_offset(segs, a);
					if (off == std::string::npos)
						continue;
				} else {
					off = rng() % bytes.size();
				}
				bytes[off] = char(rng());
			}
		}
		std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
		auto r = analyze_core(path, opts);
		if (!r) {
			errors++;
			if (r.error().message.empty()) {
				fprintf(stderr, "iteration %d: error without a message\n", i);
				return 1;
			}
			continue;
		}
		if (r->diagnostics.has_problems())
			partial++;
		bool equal = !r->vms.empty() &&
			     r->vms[0].stack.frames.size() == base->vms[0].stack.frames.size();
		(equal ? same : changed)++;
	}
	std::remove(path.c_str());
	printf("%d runs: %d refused with a reason, %d partial with problems, "
	       "%d same frame count, %d different\n",
	       iterations, errors, partial, same, changed);
	// The mutations must have reached the analysis, or this test tests nothing.
	if (errors + partial == 0) {
		fprintf(stderr, "no mutation was noticed: the test does not reach the walker\n");
		return 1;
	}
	return 0;
}
