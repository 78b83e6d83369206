#include "cli/catch/settings.h"

#include <charconv>
#include <sstream>

#include "cli/catch/files.h"

namespace ljcore::catching {

namespace {

constexpr const char *pattern_path = "/proc/sys/kernel/core_pattern";
constexpr const char *pipe_limit_path = "/proc/sys/kernel/core_pipe_limit";

std::string without_newline(std::string s)
{
	if (!s.empty() && s.back() == '\n')
		s.pop_back();
	return s;
}

template <typename T> bool parse_number(const std::string &text, T &out)
{
	auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
	return ec == std::errc() && end == text.data() + text.size();
}

} // namespace

std::string keep_core_name(KeepCore k)
{
	return k == KeepCore::always ? "always" : k == KeepCore::lua ? "lua" : "never";
}

Expected<KeepCore> keep_core_named(const std::string &name)
{
	if (name == "never")
		return KeepCore::never;
	if (name == "lua")
		return KeepCore::lua;
	if (name == "always")
		return KeepCore::always;
	return fail("keep-core: " + name + " is not never, lua or always");
}

std::string settings_text(const Settings &s)
{
	std::ostringstream out;
	out << "keep-core=" << keep_core_name(s.keep_core) << "\n"
	    << "chain=" << (s.chain ? 1 : 0) << "\n"
	    << "size-cap=" << s.size_cap << "\n"
	    << "quota=" << s.quota << "\n"
	    << "rate=" << s.rate << "\n"
	    << "deadline=" << s.deadline_seconds << "\n"
	    << "redact=" << (s.redact ? 1 : 0) << "\n";
	return out.str();
}

Expected<Settings> read_settings(const std::string &dir)
{
	Settings s;
	s.dir = dir;
	auto text = read_small_file(dir + "/" + settings_file);
	if (!text)
		return std::unexpected(text.error());
	std::istringstream in(*text);
	std::string line;
	while (std::getline(in, line)) {
		auto eq = line.find('=');
		if (eq == std::string::npos)
			continue;
		std::string key = line.substr(0, eq), value = line.substr(eq + 1);
		bool ok = true;
		if (key == "keep-core") {
			auto k = keep_core_named(value);
			ok = k.has_value();
			if (k)
				s.keep_core = *k;
		} else if (key == "chain") {
			s.chain = value == "1";
		} else if (key == "size-cap") {
			ok = parse_number(value, s.size_cap);
		} else if (key == "quota") {
			ok = parse_number(value, s.quota);
		} else if (key == "rate") {
			ok = parse_number(value, s.rate);
		} else if (key == "deadline") {
			ok = parse_number(value, s.deadline_seconds);
		} else if (key == "redact") {
			s.redact = value == "1";
		}
		if (!ok)
			return fail(dir + "/" + settings_file + ": bad value in '" + line + "'");
	}
	return s;
}

Expected<KernelSettings> read_kernel_settings()
{
	auto pattern = read_small_file(pattern_path);
	if (!pattern)
		return std::unexpected(pattern.error());
	auto limit = read_small_file(pipe_limit_path);
	if (!limit)
		return std::unexpected(limit.error());
	return KernelSettings{without_newline(*pattern), without_newline(*limit)};
}

Expected<void> write_kernel_settings(const KernelSettings &k)
{
	// The limit first: a pipe handler must find /proc/PID kept for it.
	if (auto r = write_existing_file(pipe_limit_path, k.core_pipe_limit); !r)
		return r;
	// The newline ends the value, an empty one too.
	return write_existing_file(pattern_path, k.core_pattern + "\n");
}

std::string previous_text(const KernelSettings &k)
{
	return k.core_pattern + "\n" + k.core_pipe_limit + "\n";
}

Expected<KernelSettings> read_previous(const std::string &dir)
{
	auto text = read_small_file(dir + "/" + previous_file);
	if (!text)
		return std::unexpected(text.error());
	std::istringstream in(*text);
	KernelSettings k;
	if (!std::getline(in, k.core_pattern) || !std::getline(in, k.core_pipe_limit))
		return fail(dir + "/" + previous_file + ": not two lines");
	return k;
}

} // namespace ljcore::catching
