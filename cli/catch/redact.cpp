#include "cli/catch/redact.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <set>
#include <string_view>
#include <unordered_map>

namespace ljcore::catching {

namespace {

// At most this many strings are blanked in the snapshot: the report
// shows at most max_items entries of a table, a few levels deep.
constexpr size_t max_blanked = 1 << 16;
// At most this many bytes of redacted strings are held for the search.
constexpr uint64_t max_searched_bytes = 64 << 20;
// An nginx request's text is at most this long (nginx_request.cpp reads
// no longer ngx_str_t: large_client_header_buffers 4 8k).
constexpr uint64_t max_request_bytes = 64 << 10;

void strings_of(const LuaValue &v, uint64_t header, std::vector<std::pair<uint64_t, uint64_t>> &out)
{
	if (out.size() >= max_blanked)
		return;
	if (v.type == LuaValue::Type::string && v.address)
		out.emplace_back(v.address + header, v.length);
	for (const TableEntry &e : v.entries) {
		strings_of(e.key, header, out);
		strings_of(e.value, header, out);
	}
}

void strings_of(const LuaStack &stack, uint64_t header,
		std::vector<std::pair<uint64_t, uint64_t>> &out)
{
	for (const LuaFrame &f : stack.frames) {
		for (const Variable &v : f.variables.locals)
			strings_of(v.value, header, out);
		for (const Variable &v : f.variables.upvalues)
			strings_of(v.value, header, out);
	}
}

std::string length_only(const std::string &s)
{
	return s.empty() ? s : "(" + std::to_string(s.size()) + " bytes)";
}

// The bytes of each string object long enough to be searched for, each
// text once (strings are interned, but a text may be in two VMs).
void read_texts(const Memory &memory, Redaction &r)
{
	std::set<std::string> texts;
	uint64_t held = 0;
	for (auto [addr, size] : std::set(r.objects.begin(), r.objects.end())) {
		if (size < min_searched)
			continue;
		if (size > max_searched_bytes - held) {
			r.not_searched++;
			continue;
		}
		std::string text(size, '\0');
		if (!memory.read(addr, std::as_writable_bytes(std::span(text)))) {
			r.not_searched++;
			continue;
		}
		if (texts.insert(std::move(text)).second)
			held += size;
	}
	r.texts.insert(r.texts.end(), texts.begin(), texts.end());
}

void add_text(Redaction &r, const std::string &text)
{
	if (text.size() >= min_searched)
		r.texts.push_back(text);
}

// Where the request whose line starts at offset at of bytes ends: after
// the empty line that ends its headers. nginx has written a NUL after each
// header's name and value (ngx_http_process_request_headers), so "\0\n\r\n"
// may end them. None when a control byte or the bound comes first: then
// it is not nginx's header buffer (a Lua string may hold a request line
// too, and a GC object's header follows it).
std::optional<size_t> request_end(std::span<const std::byte> bytes, size_t at)
{
	const size_t limit = size_t(std::min<uint64_t>(bytes.size(), at + max_request_bytes));
	auto byte = [&](size_t i) { return i < limit ? char(bytes[i]) : char(1); };
	for (size_t i = at; i < limit; i++) {
		auto c = uint8_t(bytes[i]);
		if (c == '\n' && byte(i + 1) == '\n')
			return i + 2;
		if (c == '\n' && byte(i + 1) == '\r' && byte(i + 2) == '\n')
			return i + 3;
		if ((c < 0x20 && c != 0 && c != '\t' && c != '\r' && c != '\n') || c == 0x7f)
			return std::nullopt;
	}
	return std::nullopt;
}

// Zeros each request's text in bytes, from its line to its headers' end.
void zero_requests(std::span<std::byte> bytes, const std::vector<std::string> &lines)
{
	std::string_view all(reinterpret_cast<const char *>(bytes.data()), bytes.size());
	for (const std::string &line : lines)
		for (size_t at = all.find(line); at != all.npos; at = all.find(line, at + 1))
			if (auto end = request_end(bytes, at))
				std::fill(bytes.begin() + ptrdiff_t(at),
					  bytes.begin() + ptrdiff_t(*end), std::byte{0});
}

// Zeros every copy of the texts in bytes. The copies are all found before
// any is zeroed: one copy may overlap another.
void zero_copies(std::span<std::byte> bytes, const std::vector<std::string> &texts)
{
	// Texts by their first min_searched bytes; their first two bytes in a
	// bitmap, so most positions cost one lookup.
	static_assert(min_searched == sizeof(uint64_t));
	std::unordered_multimap<uint64_t, const std::string *> by_prefix;
	std::vector<bool> first_two(1 << 16);
	for (const std::string &t : texts) {
		uint64_t key;
		std::memcpy(&key, t.data(), sizeof key);
		by_prefix.emplace(key, &t);
		first_two[uint16_t(key)] = true;
	}
	std::vector<std::pair<size_t, size_t>> copies;
	for (size_t i = 0; i + min_searched <= bytes.size(); i++) {
		uint64_t key;
		std::memcpy(&key, bytes.data() + i, sizeof key);
		if (!first_two[uint16_t(key)])
			continue;
		auto [from, to] = by_prefix.equal_range(key);
		for (auto it = from; it != to; ++it) {
			const std::string &t = *it->second;
			if (t.size() <= bytes.size() - i &&
			    std::memcmp(bytes.data() + i, t.data(), t.size()) == 0)
				copies.emplace_back(i, t.size());
		}
	}
	for (auto [at, size] : copies)
		std::fill_n(bytes.begin() + ptrdiff_t(at), size, std::byte{0});
}

// Zeros the bytes of [addr, addr + size) that piece holds.
void zero_range(CorePiece &piece, uint64_t addr, uint64_t size)
{
	const uint64_t end = piece.vaddr + piece.bytes.size();
	uint64_t from = std::max(addr, piece.vaddr);
	uint64_t to = std::min(addr + std::min(size, UINT64_MAX - addr), end);
	if (from < to)
		std::fill(piece.bytes.begin() + ptrdiff_t(from - piece.vaddr),
			  piece.bytes.begin() + ptrdiff_t(to - piece.vaddr), std::byte{0});
}

} // namespace

Redaction redact(Analysis &a, const Memory &memory)
{
	Redaction r;
	for (VmResult &vm : a.vms) {
		// The characters follow the GCstr header (lj_obj.h strdata).
		const uint64_t header = vm.layout_offsets.str_size;
		strings_of(vm.stack, header, r.objects);
		for (const Coroutine &co : vm.coroutines)
			strings_of(co.stack, header, r.objects);
		for (const LuaStack &s : vm.entered)
			strings_of(s, header, r.objects);
	}
	read_texts(memory, r);
	for (VmResult &vm : a.vms)
		for (NginxRequest &q : vm.requests) {
			if (!q.method.empty() && !q.uri.empty())
				r.requests.push_back(q.method + " " + q.uri);
			// Copies outside the header buffer: a decoded URI, Lua
			// strings made from them.
			for (std::string *s : {&q.uri, &q.host, &q.client}) {
				add_text(r, *s);
				*s = length_only(*s);
			}
			q.method = length_only(q.method);
		}
	return r;
}

void scrub(std::vector<CorePiece> &pieces, const Redaction &r)
{
	for (CorePiece &piece : pieces) {
		for (auto [addr, size] : r.objects)
			zero_range(piece, addr, size);
		zero_requests(piece.bytes, r.requests);
		if (!r.texts.empty())
			zero_copies(piece.bytes, r.texts);
	}
}

} // namespace ljcore::catching
