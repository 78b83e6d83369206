#include "analyzer/snapshot.h"

#include <algorithm>
#include <cstring>
#include <elf.h>
#include <sys/stat.h>

#include "readers/core_writer.h"
#include "readers/elf_core.h"
#include "readers/live_core_notes.h"
#include "readers/live_process.h"
#include "readers/native_stack.h"
#include "readers/recording_target.h"

namespace ljcore {

namespace {

// Stack kept above the deepest known stack pointer of a thread: the
// unwinder reads return addresses and saved registers there.
constexpr uint64_t stack_slack = 512;
// And below the innermost one (the x86_64 red zone is 128 bytes).
constexpr uint64_t red_zone = 256;
// Cap on the writable data kept per module mapping.
constexpr uint64_t max_module_data = 256 << 10;

// A file mapping as the snapshot sees it: where its ELF header sits (when
// the mapping starts at file offset 0) and whether it holds writable data.
struct ModuleRange {
	uint64_t start = 0, end = 0;
	bool header = false;
};

// Reads, and so keeps, what libdwfl looks at in a module's first page to
// recognise it: the ELF header, the program headers and the notes (with
// the build-id) when they lie in that page.
void add_elf_header(uint64_t start, RecordingTarget &rec)
{
	const uint64_t page = RecordingTarget::page_size;
	auto eh = rec.read_value<Elf64_Ehdr>(start);
	if (!eh || std::memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_phentsize != sizeof(Elf64_Phdr))
		return;
	for (uint64_t i = 0; i < eh->e_phnum; i++) {
		uint64_t at = eh->e_phoff + i * sizeof(Elf64_Phdr);
		if (at + sizeof(Elf64_Phdr) > page)
			break;
		auto ph = rec.read_value<Elf64_Phdr>(start + at);
		if (ph && ph->p_type == PT_NOTE && ph->p_offset < page)
			rec.add_range(start + ph->p_offset,
				      std::min(ph->p_filesz, page - ph->p_offset));
	}
}

// Keeps what native unwinding and debuggers need beyond what the analysis
// read: each thread's stack from its innermost stack pointer to the
// outermost frame the unwinder reached, and per module its ELF header.
// With whole pages (keep_module_data), also the start of each module's
// writable data, where debuggers find the C library's state.
void add_native_needs(const Target &target, const NativeSession &native,
		      const std::vector<ModuleRange> &modules,
		      const std::vector<std::pair<uint64_t, uint64_t>> &writable,
		      bool keep_module_data, RecordingTarget &rec)
{
	const int sp_reg = arch_info(target.arch()).sp;
	for (const ThreadInfo &t : target.threads()) {
		uint64_t low = t.regs.sp - red_zone, high = t.regs.sp;
		for (const NativeFrame &f : native.unwind(t.tid).frames)
			if (f.has_reg(sp_reg))
				high = std::max(high, f.regs.dwarf[size_t(sp_reg)]);
		rec.add_range(low, high - low + stack_slack);
	}
	for (const ModuleRange &m : modules) {
		if (m.header)
			add_elf_header(m.start, rec);
		if (!keep_module_data)
			continue;
		for (auto [start, size] : writable)
			if (start < m.end && m.start < start + size)
				rec.add_range(start, std::min(size, max_module_data));
	}
}

// Debuggers list shared libraries from r_debug and its link_map chain
// (<link.h>): follow it through the recording target so that its pages are
// kept. AT_PHDR -> PT_DYNAMIC -> DT_DEBUG -> r_debug.r_map -> l_next ...
void add_link_map(std::optional<uint64_t> phdr, std::optional<uint64_t> phnum, RecordingTarget &rec)
{
	if (!phdr || !phnum)
		return;
	uint64_t bias = 0, dynamic = 0;
	for (uint64_t i = 0; i < std::min<uint64_t>(*phnum, 64); i++) {
		auto ph = rec.read_value<Elf64_Phdr>(*phdr + i * sizeof(Elf64_Phdr));
		if (!ph)
			return;
		if (ph->p_type == PT_PHDR)
			bias = *phdr - ph->p_vaddr;
		if (ph->p_type == PT_DYNAMIC)
			dynamic = ph->p_vaddr;
	}
	if (!dynamic)
		return;
	uint64_t r_debug = 0;
	for (uint64_t at = bias + dynamic, i = 0; i < 256; i++, at += sizeof(Elf64_Dyn)) {
		auto dyn = rec.read_value<Elf64_Dyn>(at);
		if (!dyn || dyn->d_tag == DT_NULL)
			break;
		if (dyn->d_tag == DT_DEBUG)
			r_debug = dyn->d_un.d_ptr;
	}
	if (!r_debug)
		return;
	// struct r_debug { int r_version; struct link_map *r_map; ... }
	auto map = rec.read_value<uint64_t>(r_debug + 8);
	rec.add_range(r_debug, 40);
	// struct link_map { l_addr; char *l_name; l_ld; l_next; l_prev; }
	for (uint64_t lm = map.value_or(0), n = 0; lm && n < 1024; n++) {
		rec.add_range(lm, 40);
		auto name = rec.read_value<uint64_t>(lm + 8);
		if (name && *name)
			rec.add_range(*name, 256);
		auto next = rec.read_value<uint64_t>(lm + 24);
		lm = next.value_or(0);
	}
}

// Zeroes the words of the page at vaddr that were not read.
void keep_read_words(std::vector<std::byte> &page, uint64_t vaddr, const std::set<uint64_t> &words)
{
	const uint64_t word = RecordingTarget::word_size;
	for (uint64_t off = 0; off < page.size(); off += word)
		if (!words.count((vaddr + off) / word))
			std::fill_n(page.begin() + off, std::min(word, page.size() - off),
				    std::byte{0});
}

// Appends one page to the pieces, merged with the one before when adjacent.
void add_page(std::vector<CorePiece> &memory, uint64_t vaddr, std::vector<std::byte> bytes,
	      bool writable)
{
	if (!memory.empty() && memory.back().vaddr + memory.back().bytes.size() == vaddr &&
	    memory.back().writable == writable) {
		auto &last = memory.back().bytes;
		last.insert(last.end(), bytes.begin(), bytes.end());
	} else {
		memory.push_back(CorePiece{vaddr, std::move(bytes), writable, false});
	}
}

Expected<SnapshotResult> write_snapshot(const std::string &out_path, const CoreContents &out,
					uint64_t source_bytes)
{
	if (auto r = write_core(out_path, out, out_path.ends_with(".zst")); !r)
		return std::unexpected(r.error());
	SnapshotResult result;
	for (auto &m : out.memory)
		result.pages += m.bytes.size() / RecordingTarget::page_size;
	struct stat st;
	if (stat(out_path.c_str(), &st) == 0)
		result.bytes = uint64_t(st.st_size);
	result.source_bytes = source_bytes;
	return result;
}

std::optional<uint64_t> auxv_find(std::span<const std::byte> auxv, uint64_t type)
{
	for (size_t at = 0; at + 16 <= auxv.size(); at += 16) {
		uint64_t entry[2];
		std::memcpy(entry, auxv.data() + at, sizeof entry);
		if (entry[0] == type)
			return entry[1];
		if (entry[0] == AT_NULL)
			break;
	}
	return std::nullopt;
}

struct Reads {
	std::set<uint64_t> pages, words;
};

// What the analysis reads of the core alone (FileLookup::core_only), as a
// fixture is checked: without the files' unwind tables the VM may be found
// another way (the heap scan), reading other words.
Expected<Reads> reads_of_core_alone(const std::string &core_path, AnalyzeOptions options)
{
	options.lookup = FileLookup{.exe = {}, .sysroot = {}, .core_only = true};
	auto session = open_core(core_path, options.lookup);
	if (!session)
		return std::unexpected(session.error());
	RecordingTarget rec(*session->core, true);
	analyze_target(rec, *session->native, options);
	return Reads{rec.pages(), rec.words()};
}

// What a snapshot of the core keeps: its notes and the pages the analysis
// (options) read, with alone's besides (only_read_bytes: of those pages
// only the words read).
CoreContents minimized_core(const CoreSession &session, const AnalyzeOptions &full,
			    const Reads &alone, bool only_read_bytes)
{
	const ElfCore &core = *session.core;
	const NativeSession &native = *session.native;
	RecordingTarget rec(core, only_read_bytes);
	rec.add(alone.pages, alone.words);
	analyze_target(rec, native, full);
	std::vector<ModuleRange> modules;
	for (const FileMapping &m : core.files().mappings())
		modules.push_back({m.start, m.end, m.file_offset == 0});
	std::vector<std::pair<uint64_t, uint64_t>> writable;
	for (const CoreSegment &seg : core.segments())
		if (seg.writable)
			writable.emplace_back(seg.vaddr, seg.filesz);
	add_native_needs(core, native, modules, writable, !only_read_bytes, rec);
	add_link_map(core.auxv_value(AT_PHDR), core.auxv_value(AT_PHNUM), rec);

	// Pages the core holds; file-backed pages the core left out stay out
	// (they come from the files, checked by build-id).
	CoreContents out;
	out.arch = core.arch();
	out.notes = core.raw_notes();
	const uint64_t page = RecordingTarget::page_size;
	for (uint64_t p : rec.pages()) {
		std::vector<std::byte> bytes(page);
		if (!core.read_core_only(p * page, bytes))
			continue;
		if (only_read_bytes)
			keep_read_words(bytes, p * page, rec.words());
		bool writable_page = false;
		for (auto &seg : core.segments())
			if (p * page >= seg.vaddr && p * page - seg.vaddr < seg.memsz)
				writable_page = seg.writable;
		add_page(out.memory, p * page, std::move(bytes), writable_page);
	}
	return out;
}

} // namespace

Expected<SnapshotResult> snapshot_core(const std::string &core_path, const std::string &out_path,
				       const AnalyzeOptions &options, bool only_read_bytes)
{
	// The JIT's traces too, with what the trace table reads of their
	// machine code: a few pages. Every coroutine only when asked for:
	// finding them walks the GC heap, and whole pages of every object's
	// header would be most of a big heap.
	AnalyzeOptions full = options;
	full.traces = true;
	full.mcode = true;
	// Only ljcore reads such a core back, and from the core alone.
	Reads alone;
	if (only_read_bytes) {
		auto r = reads_of_core_alone(core_path, full);
		if (!r)
			return std::unexpected(r.error());
		alone = std::move(*r);
	}
	auto session = open_core(core_path, options.lookup);
	if (!session)
		return std::unexpected(session.error());
	CoreContents out = minimized_core(*session, full, alone, only_read_bytes);
	struct stat st;
	uint64_t source_bytes = stat(core_path.c_str(), &st) == 0 ? uint64_t(st.st_size) : 0;
	return write_snapshot(out_path, out, source_bytes);
}

CoreContents snapshot_contents(const CoreSession &session, const AnalyzeOptions &options)
{
	AnalyzeOptions full = options;
	full.traces = true;
	full.mcode = true;
	return minimized_core(session, full, Reads{}, false);
}

Expected<SnapshotResult> snapshot_pid(int32_t pid, const std::string &out_path,
				      const AnalyzeOptions &options)
{
	auto session = open_live(pid, options.layout);
	if (!session)
		return std::unexpected(session.error());
	const LiveProcess &live = *session->process;
	const NativeSession &native = *session->native;
	RecordingTarget rec(live);
	analyze_target(rec, native, options);
	std::vector<ModuleRange> modules;
	std::vector<std::pair<uint64_t, uint64_t>> writable;
	for (const ProcMapping &m : live.mappings()) {
		if (!m.path.empty() && m.path[0] == '/')
			modules.push_back({m.start, m.end, m.offset == 0});
		if (m.writable)
			writable.emplace_back(m.start, m.end - m.start);
	}
	add_native_needs(live, native, modules, writable, true, rec);
	add_link_map(auxv_find(live.auxv(), AT_PHDR), auxv_find(live.auxv(), AT_PHNUM), rec);

	// Copy the pages while the threads are still stopped, so that the
	// snapshot is one consistent instant. Like the kernel's default
	// coredump_filter, read-only file-backed pages other than ELF headers
	// are left to the files (matched by build-id when read back).
	CoreContents out;
	out.arch = live.arch();
	const uint64_t page = RecordingTarget::page_size;
	uint64_t source_bytes = 0;
	for (const ProcMapping &m : live.mappings())
		source_bytes += m.end - m.start;
	for (uint64_t p : rec.pages()) {
		const uint64_t at = p * page;
		auto m = std::find_if(
			live.mappings().begin(), live.mappings().end(),
			[&](const ProcMapping &map) { return at >= map.start && at < map.end; });
		if (m == live.mappings().end() || !m->readable)
			continue;
		bool from_file = !m->path.empty() && m->path[0] == '/';
		if (from_file && !m->writable && !(m->offset == 0 && at == m->start))
			continue;
		std::vector<std::byte> bytes(page);
		if (!live.read(at, bytes))
			continue;
		add_page(out.memory, at, std::move(bytes), m->writable);
	}
	uint64_t paused_us = uint64_t(session->process->resume().count());
	out.notes = live_core_notes(live);
	auto result = write_snapshot(out_path, out, source_bytes);
	if (result)
		result->paused_us = paused_us;
	return result;
}

} // namespace ljcore
