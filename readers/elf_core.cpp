#include "readers/elf_core.h"

#include <algorithm>
#include <atomic>
#include <cstring>

#include <elf.h>
#include <fcntl.h>
#include <gelf.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ljcore {

namespace {

// Offsets in the 64-bit struct elf_prstatus and elf_prpsinfo (the same on
// x86_64 and aarch64: <linux/elfcore.h> with 64-bit longs).
constexpr size_t prstatus_cursig = 12;
constexpr size_t prstatus_pid = 32;
constexpr size_t prstatus_reg = 112;
constexpr size_t prpsinfo_pid = 24;
constexpr size_t prpsinfo_fname = 40;
constexpr size_t prpsinfo_psargs = 56;

template <typename T> T load(const std::byte *p)
{
	T v;
	memcpy(&v, p, sizeof v);
	return v;
}

std::string c_string(const std::byte *p, size_t max)
{
	auto *s = reinterpret_cast<const char *>(p);
	return std::string(s, strnlen(s, max));
}

} // namespace

ElfCore::~ElfCore()
{
	if (elf_)
		elf_end(elf_);
}

Expected<std::unique_ptr<ElfCore>> ElfCore::open(const std::string &path, FileLookup lookup)
{
	return open_with(path, std::move(lookup), nullptr);
}

Expected<std::unique_ptr<ElfCore>> ElfCore::open_head(const std::string &path, FileLookup lookup,
						      const Memory &unwritten)
{
	return open_with(path, std::move(lookup), &unwritten);
}

Expected<std::unique_ptr<ElfCore>> ElfCore::open_with(const std::string &path, FileLookup lookup,
						      const Memory *unwritten)
{
	std::unique_ptr<ElfCore> core(new ElfCore());
	core->path_ = path;
	core->unwritten_ = unwritten;
	auto image = CoreImage::open(path);
	if (!image)
		return std::unexpected(image.error());
	core->image_ = std::move(*image);
	if (core->image_->size() < EI_NIDENT)
		return fail(path + ": too small to be an ELF file");
	elf_version(EV_CURRENT);
	// libelf only reads the image; the cast is for its C prototype.
	core->elf_ =
		elf_memory(reinterpret_cast<char *>(const_cast<std::byte *>(core->image_->data())),
			   core->image_->size());
	if (!core->elf_)
		return fail(path + ": " + elf_errmsg(-1));
	GElf_Ehdr eh;
	if (elf_kind(core->elf_) != ELF_K_ELF || !gelf_getehdr(core->elf_, &eh))
		return fail(path + ": not an ELF file");
	if (eh.e_type != ET_CORE)
		return fail(path + ": ELF file but not a core (e_type " +
			    std::to_string(eh.e_type) + ")");
	if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB)
		return fail(path + ": only 64-bit little-endian cores are supported");
	if (auto arch = arch_of_machine(eh.e_machine))
		core->arch_ = *arch;
	else
		return fail(path + ": unsupported machine " + std::to_string(eh.e_machine));

	if (auto r = core->load_segments(); !r)
		return std::unexpected(r.error().context(path));
	if (auto r = core->load_notes(); !r)
		return std::unexpected(r.error().context(path));

	if (core->file_mappings_.empty())
		core->mappings_from_memory(lookup);
	// The main executable is the mapping that holds the entry point.
	std::string exe_path;
	if (auto entry = core->auxv_value(AT_ENTRY))
		for (auto &m : core->file_mappings_)
			if (*entry >= m.start && *entry < m.end)
				exe_path = m.path;
	ElfCore *self = core.get();
	core->files_ = std::make_unique<MappedFiles>(
		std::move(core->file_mappings_), std::move(lookup), exe_path,
		[self](uint64_t addr, std::span<std::byte> out) {
			return self->read_core_only(addr, out);
		});
	return core;
}

void ElfCore::mappings_from_memory(const FileLookup &lookup)
{
	// AT_EXECFN points at the executable's path on the initial stack.
	std::string execfn;
	if (auto at = auxv_value(AT_EXECFN))
		for (size_t i = 0; i < 4096; i++) {
			std::byte c;
			if (!read_core_only(*at + i, std::span(&c, 1)) || c == std::byte{0})
				break;
			execfn += char(c);
		}
	auto r = mappings_from_link_map(
		[this](uint64_t addr, std::span<std::byte> out) {
			return read_core_only(addr, out);
		},
		auxv_value(AT_ENTRY).value_or(0), execfn, lookup);
	file_mappings_ = std::move(r.mappings);
	modules_ = std::move(r.modules);
	diagnostics_.merge(r.diagnostics);
}

Expected<void> ElfCore::load_segments()
{
	static std::atomic<uint64_t> cores;
	serial_ = ++cores;
	size_t n;
	if (elf_getphdrnum(elf_, &n) != 0)
		return fail(std::string("program headers: ") + elf_errmsg(-1));
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf_, int(i), &ph))
			return fail(std::string("program header: ") + elf_errmsg(-1));
		if (ph.p_type != PT_LOAD || ph.p_memsz == 0)
			continue;
		segments_.push_back({ph.p_vaddr, ph.p_memsz, ph.p_offset, ph.p_filesz,
				     (ph.p_flags & PF_W) != 0});
	}
	std::sort(segments_.begin(), segments_.end(),
		  [](auto &a, auto &b) { return a.vaddr < b.vaddr; });
	uint64_t needed = 0;
	for (auto &seg : segments_)
		needed = std::max(needed, seg.offset + seg.filesz);
	if (needed > image_->size() && !unwritten_)
		diagnostics_.problem("core is truncated: " + std::to_string(image_->size()) +
				     " bytes of " + std::to_string(needed) +
				     "; memory past the end reads as missing");
	return {};
}

Expected<void> ElfCore::load_notes()
{
	size_t n;
	if (elf_getphdrnum(elf_, &n) != 0)
		return fail(std::string("program headers: ") + elf_errmsg(-1));
	bool any = false, cut = false;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf_, int(i), &ph) || ph.p_type != PT_NOTE)
			continue;
		if (ph.p_offset > image_->size() || ph.p_filesz > image_->size() - ph.p_offset) {
			diagnostics_.problem("note segment runs past the end of the file "
					     "(truncated core?)");
			cut = true;
			continue;
		}
		Elf_Data *data =
			elf_getdata_rawchunk(elf_, int64_t(ph.p_offset), ph.p_filesz, ELF_T_NHDR);
		if (!data)
			return fail(std::string("notes: ") + elf_errmsg(-1));
		any = true;
		auto *raw = static_cast<const std::byte *>(data->d_buf);
		raw_notes_.insert(raw_notes_.end(), raw, raw + data->d_size);
		size_t off = 0;
		GElf_Nhdr nh;
		size_t name_off, desc_off;
		while (off < data->d_size &&
		       (off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
			auto *base = static_cast<const std::byte *>(data->d_buf);
			const char *name = reinterpret_cast<const char *>(base + name_off);
			// Linux writes NT_PRSTATUS & co. under "CORE", NT_ARM_* and
			// NT_X86_XSTATE under "LINUX"; gdb adds its own "GDB" note.
			if (nh.n_namesz == 5 && memcmp(name, "CORE", 5) == 0)
				parse_note(nh.n_type, base + desc_off, nh.n_descsz);
			// aarch64's thread pointer (tpidr_el0), after its thread's
			// NT_PRSTATUS. qemu-user writes none.
			if (nh.n_namesz == 6 && memcmp(name, "LINUX", 6) == 0 &&
			    nh.n_type == NT_ARM_TLS && arch_ == Arch::aarch64 &&
			    !threads_.empty() && nh.n_descsz >= sizeof(uint64_t))
				threads_.back().regs.thread_pointer =
					load<uint64_t>(base + desc_off);
		}
	}
	if (!any)
		return fail(cut ? "no notes: the note segment runs past the end of the file "
				  "(truncated core?)"
				: "no notes: not a process core");
	if (threads_.empty())
		return fail("no NT_PRSTATUS note: no thread to analyze");
	// qemu-user writes no NT_SIGINFO; the first thread's pr_cursig says
	// which signal killed it.
	if (!signal_ && threads_.front().cursig)
		signal_ = SignalInfo{threads_.front().cursig, 0, 0};
	return {};
}

void ElfCore::parse_note(uint32_t type, const std::byte *desc, size_t size)
{
	switch (type) {
	case NT_PRSTATUS:
		return read_prstatus(desc, size);
	case NT_PRFPREG:
		return read_prfpreg(desc, size);
	case NT_PRPSINFO:
		return read_prpsinfo(desc, size);
	case NT_SIGINFO:
		return read_siginfo(desc, size);
	case NT_AUXV:
		return read_auxv(desc, size);
	case NT_FILE:
		return read_file_note(desc, size);
	default:
		return;
	}
}

void ElfCore::read_prstatus(const std::byte *desc, size_t size)
{
	const ArchInfo &arch = arch_info(arch_);
	if (size < prstatus_reg + arch.prstatus_regs * 8) {
		diagnostics_.problem("short NT_PRSTATUS note ignored");
		return;
	}
	ThreadInfo t;
	t.tid = load<int32_t>(desc + prstatus_pid);
	t.cursig = load<int16_t>(desc + prstatus_cursig);
	t.regs = regs_from_prstatus(arch, desc + prstatus_reg);
	threads_.push_back(t);
}

void ElfCore::read_prfpreg(const std::byte *desc, size_t size)
{
	// The thread's NT_PRSTATUS comes right before.
	const ArchInfo &arch = arch_info(arch_);
	if (threads_.empty() || threads_.back().regs.has_fpr ||
	    size < arch.vector_offset + 16 * arch.vector_regs) {
		diagnostics_.problem("NT_PRFPREG note without its thread, or short: ignored");
		return;
	}
	read_vector_regs(arch, desc, threads_.back().regs);
}

void ElfCore::read_prpsinfo(const std::byte *desc, size_t size)
{
	if (size < prpsinfo_psargs + 80) {
		diagnostics_.problem("short NT_PRPSINFO note ignored");
		return;
	}
	process_.pid = load<int32_t>(desc + prpsinfo_pid);
	process_.name = c_string(desc + prpsinfo_fname, 16);
	process_.args = c_string(desc + prpsinfo_psargs, 80);
	while (!process_.args.empty() && process_.args.back() == ' ')
		process_.args.pop_back();
}

void ElfCore::read_siginfo(const std::byte *desc, size_t size)
{
	// gcore writes one per thread; the first is the one that stopped.
	if (signal_ || size < 24)
		return;
	signal_ =
		SignalInfo{load<int32_t>(desc), load<int32_t>(desc + 8), load<uint64_t>(desc + 16)};
}

void ElfCore::read_auxv(const std::byte *desc, size_t size)
{
	for (size_t off = 0; off + 16 <= size; off += 16) {
		uint64_t key = load<uint64_t>(desc + off);
		if (key == AT_NULL)
			break;
		auxv_.emplace_back(key, load<uint64_t>(desc + off + 8));
	}
}

void ElfCore::read_file_note(const std::byte *desc, size_t size)
{
	if (size < 16) {
		diagnostics_.problem("short NT_FILE note ignored");
		return;
	}
	uint64_t count = load<uint64_t>(desc);
	uint64_t page = load<uint64_t>(desc + 8);
	if (count > (size - 16) / 24) {
		diagnostics_.problem("NT_FILE note claims more entries than it holds");
		return;
	}
	size_t names = 16 + count * 24;
	for (uint64_t i = 0; i < count && names < size; i++) {
		const std::byte *e = desc + 16 + i * 24;
		FileMapping m;
		m.start = load<uint64_t>(e);
		m.end = load<uint64_t>(e + 8);
		m.file_offset = load<uint64_t>(e + 16) * page;
		m.path = c_string(desc + names, size - names);
		names += m.path.size() + 1;
		file_mappings_.push_back(std::move(m));
	}
}

std::optional<uint64_t> ElfCore::auxv_value(uint64_t type) const
{
	for (auto &[k, v] : auxv_)
		if (k == type)
			return v;
	return std::nullopt;
}

const CoreSegment *ElfCore::segment_at(uint64_t addr) const
{
	// Walks over the heap read segment after segment, a field at a time:
	// the segment of the last read usually holds the next. Remembered per
	// thread (the census reads on two), and by the core's serial number,
	// not its address, which a later core may reuse.
	thread_local struct {
		uint64_t serial = 0;
		const CoreSegment *segment = nullptr;
	} last;
	if (last.segment && last.serial == serial_ &&
	    addr - last.segment->vaddr < last.segment->memsz)
		return last.segment;
	auto it = std::upper_bound(segments_.begin(), segments_.end(), addr,
				   [](uint64_t a, const CoreSegment &s) { return a < s.vaddr; });
	if (it == segments_.begin())
		return nullptr;
	--it;
	if (addr - it->vaddr >= it->memsz)
		return nullptr;
	last = {serial_, &*it};
	return &*it;
}

std::expected<void, ReadMiss> ElfCore::read_core_only(uint64_t addr, std::span<std::byte> out) const
{
	size_t done = 0;
	while (done < out.size()) {
		uint64_t at = addr + done;
		const CoreSegment *s = segment_at(at);
		if (!s)
			return std::unexpected(ReadMiss{at, "not in any segment of the core"});
		uint64_t rel = at - s->vaddr;
		if (rel >= s->filesz)
			return std::unexpected(
				ReadMiss{at, "not dumped in the core (p_filesz < p_memsz)"});
		size_t n = std::min<uint64_t>(out.size() - done, s->filesz - rel);
		uint64_t off = s->offset + rel;
		if (off > image_->size() || n > image_->size() - off) {
			if (!unwritten_)
				return std::unexpected(
					ReadMiss{at, "past the end of the core file (truncated)"});
			// Bytes the kernel has yet to write: the same, from the
			// process it writes them from.
			if (auto r = unwritten_->read(at, out.subspan(done, n)); !r)
				return r;
		} else {
			memcpy(out.data() + done, image_->data() + off, n);
		}
		done += n;
	}
	return {};
}

MemoryView ElfCore::view(uint64_t addr) const
{
	const CoreSegment *s = segment_at(addr);
	if (!s)
		return {};
	// segment_bytes leaves out what the file does not hold (p_filesz <
	// p_memsz, a truncated core): those bytes are no view.
	auto bytes = segment_bytes(*s);
	if (addr - s->vaddr >= bytes.size())
		return {};
	return {s->vaddr, bytes};
}

bool ElfCore::writable(uint64_t addr) const
{
	const CoreSegment *s = segment_at(addr);
	return s && s->writable;
}

// A core's head holds no segment: each is copied from the process in
// pieces, overlapping by a page.
void ElfCore::visit_unwritten(const Visitor &visit) const
{
	constexpr uint64_t chunk = 16 << 20, overlap = 4096;
	std::vector<std::byte> buf;
	for (const CoreSegment &seg : segments_) {
		if (!seg.writable)
			continue;
		for (uint64_t rel = 0; rel < seg.filesz;) {
			uint64_t n = std::min(chunk, seg.filesz - rel);
			buf.resize(size_t(n));
			if (read_core_only(seg.vaddr + rel, buf))
				visit(seg.vaddr + rel, buf);
			if (rel + n >= seg.filesz)
				break;
			rel += n - overlap;
		}
	}
}

void ElfCore::visit_writable(const Visitor &visit) const
{
	if (unwritten_) {
		visit_unwritten(visit);
		return;
	}
	for (const CoreSegment &seg : segments_) {
		if (!seg.writable)
			continue;
		// Only the parts the file holds: the rest of a sparse core is
		// zeros, which hold no pointer.
		auto bytes = segment_bytes(seg);
		image_->visit_data(seg.offset, bytes.size(), [&](uint64_t offset, uint64_t n) {
			// Whole words of the segment, whatever the alignment of
			// the extent in the file (a gcore core's segments are
			// not page-aligned in it).
			constexpr uint64_t word = 8;
			uint64_t from = (offset - seg.offset) & ~(word - 1);
			uint64_t to = std::min<uint64_t>(
				(offset - seg.offset + n + word - 1) & ~(word - 1), bytes.size());
			visit(seg.vaddr + from, bytes.subspan(from, to - from));
		});
	}
}

std::span<const std::byte> ElfCore::segment_bytes(const CoreSegment &seg) const
{
	if (seg.offset >= image_->size())
		return {};
	size_t n = std::min<uint64_t>(seg.filesz, image_->size() - seg.offset);
	return {image_->data() + seg.offset, n};
}

std::expected<void, ReadMiss> ElfCore::read(uint64_t addr, std::span<std::byte> out) const
{
	// Most reads are a field of an object in one segment the core holds:
	// one lookup, one copy.
	if (const CoreSegment *s = segment_at(addr)) {
		uint64_t rel = addr - s->vaddr;
		uint64_t off = s->offset + rel;
		if (rel <= s->filesz && out.size() <= s->filesz - rel && off <= image_->size() &&
		    out.size() <= image_->size() - off) {
			memcpy(out.data(), image_->data() + off, out.size());
			return {};
		}
	}
	size_t done = 0;
	while (done < out.size()) {
		uint64_t at = addr + done;
		const CoreSegment *s = segment_at(at);
		size_t n = out.size() - done;
		if (s)
			n = std::min<uint64_t>(n, s->vaddr + s->memsz - at);
		auto piece = out.subspan(done, n);
		auto r = read_core_only(at, piece);
		if (!r) {
			// Left out of the core: file-backed memory comes from disk.
			if (!files_->mapping_at(r.error().addr))
				return r;
			size_t ok = size_t(r.error().addr - at);
			if (auto f = files_->read(r.error().addr, piece.subspan(ok)); !f)
				return f;
		}
		done += n;
	}
	return {};
}

} // namespace ljcore
