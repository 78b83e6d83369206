#include "cli/catch/redact.h"

namespace ljcore::catching {

namespace {

// At most this many strings are blanked in the snapshot: the report
// shows at most max_items entries of a table, a few levels deep.
constexpr size_t max_blanked = 1 << 16;

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

} // namespace

std::vector<std::pair<uint64_t, uint64_t>> redact(Analysis &a)
{
	std::vector<std::pair<uint64_t, uint64_t>> blank;
	for (VmResult &vm : a.vms) {
		// The characters follow the GCstr header (lj_obj.h strdata).
		const uint64_t header = vm.layout_offsets.str_size;
		strings_of(vm.stack, header, blank);
		for (const Coroutine &co : vm.coroutines)
			strings_of(co.stack, header, blank);
		for (const LuaStack &s : vm.entered)
			strings_of(s, header, blank);
		for (NginxRequest &r : vm.requests) {
			r.method = length_only(r.method);
			r.uri = length_only(r.uri);
			r.host = length_only(r.host);
			r.client = length_only(r.client);
		}
	}
	return blank;
}

} // namespace ljcore::catching
