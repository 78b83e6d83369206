#include "analyzer/snapshot.h"

#include <elf.h>
#include <sys/stat.h>

#include "readers/core_writer.h"
#include "readers/elf_core.h"
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

void add_native_needs(const ElfCore &core, const NativeSession &native,
		      RecordingTarget &rec)
{
	const int sp_reg = core.arch() == Arch::x86_64 ? 7 : 31;
	for (const ThreadInfo &t : core.threads()) {
		uint64_t low = t.regs.sp - red_zone, high = t.regs.sp;
		for (const NativeFrame &f : native.unwind(t.tid).frames)
			if (f.has_reg(sp_reg))
				high = std::max(high, f.regs.dwarf[size_t(sp_reg)]);
		rec.add_range(low, high - low + stack_slack);
	}
	// libdwfl recognises modules by the ELF header and notes (build-id)
	// at the start of their first mapping.
	// Debuggers find shared libraries through r_debug and the link_map
	// chain, which live in the modules' writable data; keep those small
	// mappings whole so that gdb can show native frames of a snapshot.
	for (const FileMapping &m : core.files().mappings()) {
		if (m.file_offset == 0)
			rec.add_range(m.start, RecordingTarget::page_size);
		for (const CoreSegment &seg : core.segments())
			if (seg.writable && seg.vaddr < m.end && m.start < seg.vaddr + seg.memsz)
				rec.add_range(seg.vaddr, std::min(seg.filesz, max_module_data));
	}
}

// Debuggers list shared libraries from r_debug and its link_map chain
// (<link.h>): follow it through the recording target so that its pages are
// kept. AT_PHDR -> PT_DYNAMIC -> DT_DEBUG -> r_debug.r_map -> l_next ...
void add_link_map(const ElfCore &core, RecordingTarget &rec)
{
	auto phdr = core.auxv_value(AT_PHDR);
	auto phnum = core.auxv_value(AT_PHNUM);
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
		auto name = rec.read_value<uint64_t>(lm + 8);
		if (name && *name)
			rec.add_range(*name, 256);
		auto next = rec.read_value<uint64_t>(lm + 24);
		lm = next.value_or(0);
	}
}

} // namespace

Expected<SnapshotResult> snapshot_core(const std::string &core_path, const std::string &out_path,
				       const AnalyzeOptions &options)
{
	auto core = ElfCore::open(core_path, options.lookup);
	if (!core)
		return std::unexpected(core.error());
	auto native = NativeSession::open_core(**core);
	if (!native)
		return std::unexpected(native.error().context(core_path));
	RecordingTarget rec(**core);
	AnalyzeOptions full = options;
	full.all_coroutines = true;
	analyze_target(rec, **native, full);
	add_native_needs(**core, **native, rec);
	add_link_map(**core, rec);

	// Pages the core holds, merged into runs; file-backed pages the core
	// left out stay out (they come from the files, checked by build-id).
	CoreContents out;
	out.arch = (*core)->arch();
	out.notes = (*core)->raw_notes();
	const uint64_t page = RecordingTarget::page_size;
	for (uint64_t p : rec.pages()) {
		std::vector<std::byte> bytes(page);
		if (!(*core)->read_core_only(p * page, bytes))
			continue;
		const CoreSegment *seg = nullptr;
		for (auto &s : (*core)->segments())
			if (p * page >= s.vaddr && p * page - s.vaddr < s.memsz)
				seg = &s;
		bool writable = seg && seg->writable;
		if (!out.memory.empty() &&
		    out.memory.back().vaddr + out.memory.back().bytes.size() == p * page &&
		    out.memory.back().writable == writable) {
			auto &last = out.memory.back().bytes;
			last.insert(last.end(), bytes.begin(), bytes.end());
		} else {
			out.memory.push_back(CorePiece{p * page, std::move(bytes), writable, false});
		}
	}
	if (auto r = write_core(out_path, out, out_path.ends_with(".zst")); !r)
		return std::unexpected(r.error());

	SnapshotResult result;
	for (auto &m : out.memory)
		result.pages += m.bytes.size() / page;
	struct stat st;
	if (stat(out_path.c_str(), &st) == 0)
		result.bytes = uint64_t(st.st_size);
	if (stat(core_path.c_str(), &st) == 0)
		result.source_bytes = uint64_t(st.st_size);
	return result;
}

} // namespace ljcore
