// ljcore gc --retained: the objects that keep the most memory alive, with
// their largest dominated children, as text or JSON.
#include <cinttypes>
#include <cstdio>

#include "cli/render.h"
#include "cli/render_bytes.h"

namespace ljcore {

namespace {

std::string line_of_sizes(uint64_t retained, uint64_t objects, uint64_t shallow)
{
	char buf[128];
	snprintf(buf, sizeof buf,
		 "  retains %" PRIu64 " bytes in %" PRIu64 " objects, itself %" PRIu64, retained,
		 objects, shallow);
	return buf;
}

void object_text(std::ostream &out, const GcRetainedObject &o, size_t indent, size_t rank)
{
	char head[160];
	if (rank)
		snprintf(head, sizeof head, "%*s%2zu. %-12s %s", int(indent), "", rank,
			 gc_type_name(o.type), hex_address(o.addr).c_str());
	else
		snprintf(head, sizeof head, "%*s%-12s %s", int(indent), "", gc_type_name(o.type),
			 hex_address(o.addr).c_str());
	out << head << line_of_sizes(o.retained_bytes, o.retained_objects, o.shallow_bytes) << "\n";
	out << std::string(indent + (rank ? 6 : 2), ' ') << printable(o.path) << "\n";
	for (const GcRetainedObject &c : o.children)
		object_text(out, c, indent + (rank ? 6 : 2), 0);
}

} // namespace

void render_gc_retained(std::ostream &out, const GcRetained &r)
{
	out << "retained sizes: " << r.objects << " objects reachable from the roots (of "
	    << r.objects_listed << " on LuaJIT's lists), " << r.reachable_bytes << " bytes\n";
	size_t rank = 1;
	for (const GcRetainedObject &o : r.top)
		object_text(out, o, 2, rank++);
	if (!r.complete)
		out << "  (incomplete: some objects or references could not be read; see the "
		       "problems)\n";
}

// The one place that writes the JSON of retained sizes.
nlohmann::json gc_retained_json(const GcRetained &r)
{
	auto object = [](auto &self, const GcRetainedObject &o) -> nlohmann::json {
		nlohmann::json j = {{"address", hex(o.addr)},
				    {"type", gc_type_name(o.type)},
				    {"shallow_bytes", o.shallow_bytes},
				    {"retained_bytes", o.retained_bytes},
				    {"retained_objects", o.retained_objects},
				    {"path", o.path}};
		if (!o.children.empty()) {
			j["children"] = nlohmann::json::array();
			for (const GcRetainedObject &c : o.children)
				j["children"].push_back(self(self, c));
		}
		return j;
	};
	nlohmann::json top = nlohmann::json::array();
	for (const GcRetainedObject &o : r.top)
		top.push_back(object(object, o));
	return top;
}

} // namespace ljcore
