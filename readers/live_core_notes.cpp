#include "readers/live_core_notes.h"

#include <algorithm>
#include <cstring>
#include <elf.h>
#include <sys/procfs.h>
#include <unistd.h>

#include "readers/core_writer.h"

namespace ljcore {

namespace {

template <typename T> std::span<const std::byte> bytes_of(const T &v)
{
	return std::as_bytes(std::span(&v, 1));
}

void append_prstatus(std::vector<std::byte> &notes, int32_t tid, const std::vector<std::byte> &regs)
{
	elf_prstatus st{};
	st.pr_pid = tid;
	std::memcpy(&st.pr_reg, regs.data(), std::min(regs.size(), sizeof st.pr_reg));
	append_note(notes, "CORE", NT_PRSTATUS, bytes_of(st));
}

void append_prpsinfo(std::vector<std::byte> &notes, const ProcessInfo &info)
{
	elf_prpsinfo ps{};
	ps.pr_sname = 'T'; // stopped, as the process was while it was read
	ps.pr_state = 3;
	ps.pr_pid = info.pid;
	std::strncpy(ps.pr_fname, info.name.c_str(), sizeof ps.pr_fname - 1);
	std::strncpy(ps.pr_psargs, info.args.c_str(), sizeof ps.pr_psargs - 1);
	append_note(notes, "CORE", NT_PRPSINFO, bytes_of(ps));
}

// NT_FILE (fs/binfmt_elf.c fill_files_note): count, page size, then
// {start, end, offset in pages} per mapping, then the paths, NUL-ended.
void append_file_note(std::vector<std::byte> &notes, const std::vector<ProcMapping> &maps)
{
	const uint64_t page = uint64_t(sysconf(_SC_PAGESIZE));
	std::vector<uint64_t> words{0, page};
	std::string names;
	for (const ProcMapping &m : maps) {
		if (m.path.empty() || m.path[0] != '/')
			continue; // [heap], [stack], anonymous
		words.insert(words.end(), {m.start, m.end, m.offset / page});
		names += m.path;
		names += '\0';
		words[0]++;
	}
	std::vector<std::byte> desc(words.size() * 8 + names.size());
	std::memcpy(desc.data(), words.data(), words.size() * 8);
	std::memcpy(desc.data() + words.size() * 8, names.data(), names.size());
	append_note(notes, "CORE", NT_FILE, desc);
}

} // namespace

std::vector<std::byte> live_core_notes(const LiveProcess &process)
{
	// The kernel's order: the first thread's status, the process notes,
	// then the other threads.
	std::vector<std::byte> notes;
	const auto &threads = process.threads();
	const auto &regs = process.raw_regs();
	for (size_t i = 0; i < threads.size() && i < regs.size(); i++) {
		append_prstatus(notes, threads[i].tid, regs[i]);
		if (i == 0) {
			append_prpsinfo(notes, process.process());
			append_note(notes, "CORE", NT_AUXV, process.auxv());
			append_file_note(notes, process.mappings());
		}
	}
	return notes;
}

} // namespace ljcore
