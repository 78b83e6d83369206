#include "analyzer/locate/version_string.h"

#include <algorithm>
#include <charconv>
#include <vector>

namespace ljcore {

namespace {

constexpr std::string_view prefix = "LuaJIT ";
// Longer than any version LuaJIT has had ("2.1.0-beta3", "2.1.1744317938").
constexpr size_t max_version = 32;

bool version_char(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       c == '.' || c == '-';
}

} // namespace

std::optional<LuaJITVersion> parse_luajit_version(std::string_view bytes)
{
	if (!bytes.starts_with(prefix))
		return std::nullopt;
	std::string_view rest = bytes.substr(prefix.size());
	size_t n = 0;
	while (n < rest.size() && n <= max_version && version_char(rest[n]))
		n++;
	// A version starts with its major number and ends before the end of
	// the bytes (a C string's NUL at the least: what ends at the end may
	// be cut short); one that runs on past any real one is text that
	// merely starts like it.
	if (n == 0 || n >= rest.size() || n > max_version || rest[0] < '0' || rest[0] > '9')
		return std::nullopt;
	std::string_view v = rest.substr(0, n);
	LuaJITVersion out;
	out.text = std::string(prefix) + std::string(v);
	constexpr std::string_view rolling = "2.1.";
	if (v == "2.1.0-beta3") {
		out.kind = LuaJITVersion::Kind::beta3;
	} else if (v == "2.1.ROLLING") {
		out.kind = LuaJITVersion::Kind::rolling_unknown;
	} else if (v.starts_with(rolling) && v.size() > rolling.size()) {
		// Only a number that is all of the rest: "2.1.0" is no time.
		std::string_view digits = v.substr(rolling.size());
		auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(),
						 out.timestamp);
		if (ec == std::errc() && end == digits.data() + digits.size() && out.timestamp > 0)
			out.kind = LuaJITVersion::Kind::rolling;
		else
			out.timestamp = 0;
	}
	return out;
}

std::optional<FoundVersion> find_luajit_version(const Memory &mem, uint64_t low, uint64_t high,
						uint64_t max_bytes)
{
	constexpr uint64_t piece = 64 << 10, page = 4096;
	// Pieces overlap by this much, so a string across two is seen whole.
	constexpr uint64_t overlap = prefix.size() + max_version + 1;
	std::vector<char> buf(piece);
	uint64_t looked_at = 0;
	for (uint64_t at = low; at < high && looked_at < max_bytes;) {
		uint64_t len = std::min({piece, high - at, max_bytes - looked_at});
		auto bytes = std::as_writable_bytes(std::span(buf.data(), len));
		uint64_t next = at + len;
		if (auto r = mem.read(at, bytes); !r) {
			// Keep what comes before the miss; go on after its page.
			uint64_t miss = std::clamp(r.error().addr, at, at + len);
			len = miss - at;
			if (len && !mem.read(at, bytes.first(len)))
				len = 0;
			next = std::max((miss | (page - 1)) + 1, at + 1);
		}
		looked_at += next - at;
		std::string_view text(buf.data(), len);
		for (size_t hit = text.find(prefix); hit != text.npos;
		     hit = text.find(prefix, hit + 1))
			if (auto v = parse_luajit_version(text.substr(hit)))
				return FoundVersion{std::move(*v), at + hit};
		if (next >= high || next <= at)
			break;
		// Overlap only where this piece was read to its end.
		at = next == at + len && len > overlap ? next - overlap : next;
	}
	return std::nullopt;
}

} // namespace ljcore
