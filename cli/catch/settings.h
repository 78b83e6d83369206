// ljcore catch's settings. core_pattern holds 127 bytes, so it names only
// the crash directory; what else --install was told is kept in that
// directory (.catch.conf), beside the kernel settings it replaced
// (.catch.previous), both root's and 0600.
#pragma once

#include <cstdint>
#include <string>

#include "readers/error.h"

namespace ljcore::catching {

enum class KeepCore { never, lua, always };

struct Settings {
	std::string dir = "/var/lib/ljcore/crashes";
	KeepCore keep_core = KeepCore::never;
	bool chain = false;              // pass every core on to the previous handler
	uint64_t size_cap = 16ull << 20; // bytes written per crash (keep-core's core aside)
	uint64_t quota = 1ull << 30;     // bytes of the whole directory
	unsigned rate = 10;              // reports a minute per executable
	unsigned deadline_seconds = 30;  // for the analysis of one crash
	bool redact = false;             // string values as their lengths
};

constexpr const char *settings_file = ".catch.conf";
constexpr const char *previous_file = ".catch.previous";

std::string keep_core_name(KeepCore k);
Expected<KeepCore> keep_core_named(const std::string &name);

// "key=value" lines, one per setting (dir aside: it is where they are).
std::string settings_text(const Settings &s);
// Settings of dir as --install wrote them; defaults for what is missing.
Expected<Settings> read_settings(const std::string &dir);

// What --install replaced: kernel.core_pattern and kernel.core_pipe_limit.
struct KernelSettings {
	std::string core_pattern; // without the newline /proc/sys adds
	std::string core_pipe_limit;
};
Expected<KernelSettings> read_kernel_settings();
Expected<void> write_kernel_settings(const KernelSettings &k);
// The previous settings as .catch.previous keeps them (two lines).
std::string previous_text(const KernelSettings &k);
Expected<KernelSettings> read_previous(const std::string &dir);

} // namespace ljcore::catching
