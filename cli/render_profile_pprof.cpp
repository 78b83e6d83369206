// ljcore profile --format pprof: profile.proto (cli/pprof.proto) compressed
// with gzip, as `go tool pprof` reads it. A function per Lua prototype
// (name, chunk, first line), a location per frame label (its current line);
// each sample's VM state and trace as labels ("vm state", "trace"), and in
// nginx workers its request ("request": "GET /path", "host"), which
// `pprof -tagfocus`, `-tags` and `-tagroot` read.
#include <algorithm>
#include <map>
#include <tuple>

#include <zlib.h>

#include "cli/pprof.pb.h"
#include "cli/render_bytes.h"
#include "cli/render_profile.h"

namespace ljcore {

namespace {

// profile.proto's strings are indices into one table whose entry 0 is "".
class StringTable {
public:
	explicit StringTable(pprof::Profile &p) : p_(p) { index(""); }
	int64_t index(const std::string &s)
	{
		auto [it, added] = ids_.try_emplace(s, p_.string_table_size());
		if (added)
			p_.add_string_table(s);
		return it->second;
	}

private:
	pprof::Profile &p_;
	std::map<std::string, int64_t> ids_;
};

// The function a frame runs in, without its current line: frames of one
// function at different lines are one function in pprof's tables.
std::string function_name(const ProfileFrame &f)
{
	if (f.kind != ProfileFrameKind::lua)
		return profile_frame_label(f);
	if (!f.name.empty())
		return printable(f.name);
	if (f.line_defined == 0)
		return "main chunk";
	return printable("function <" + f.file + ":" + std::to_string(f.line_defined) + ">");
}

void add_value_type(pprof::ValueType *t, StringTable &strings, const char *type, const char *unit)
{
	t->set_type(strings.index(type));
	t->set_unit(strings.index(unit));
}

// A sample's request, where it served one (or an unreadable one): "request"
// as --by-request's root frame names it, and "host" where there was a Host
// header. Samples outside any request have neither.
void add_request_labels(pprof::Sample &sample, StringTable &strings, const ProfileRequest &r)
{
	if (r.status == ProfileRequest::Status::none)
		return;
	pprof::Label *request = sample.add_label();
	request->set_key(strings.index("request"));
	request->set_str(strings.index(printable(profile_request_label(r))));
	if (!r.host.empty()) {
		pprof::Label *host = sample.add_label();
		host->set_key(strings.index("host"));
		host->set_str(strings.index(printable(r.host)));
	}
}

std::string gzip(const std::string &data)
{
	z_stream z{};
	// 16 + MAX_WBITS: a gzip header and trailer around the deflate stream.
	deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
	std::string out(deflateBound(&z, data.size()), '\0');
	z.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(data.data()));
	z.avail_in = static_cast<uInt>(data.size());
	z.next_out = reinterpret_cast<Bytef *>(out.data());
	z.avail_out = static_cast<uInt>(out.size());
	deflate(&z, Z_FINISH); // deflateBound's room: one call finishes
	out.resize(z.total_out);
	deflateEnd(&z);
	return out;
}

} // namespace

std::string profile_pprof_message(const Profile &p)
{
	pprof::Profile out;
	StringTable strings(out);
	// Samples as counts, and as CPU time where the rate gives a period.
	// A profile of bytes (allocations) has one type: its bytes.
	const bool bytes = p.unit == "bytes";
	const int64_t period = p.rate_hz ? 1000000000 / p.rate_hz : 0;
	if (bytes) {
		add_value_type(out.add_sample_type(), strings, "space", "bytes");
	} else {
		add_value_type(out.add_sample_type(), strings, "samples", "count");
		if (period) {
			add_value_type(out.add_sample_type(), strings, "cpu", "nanoseconds");
			add_value_type(out.mutable_period_type(), strings, "cpu", "nanoseconds");
			out.set_period(period);
			out.set_default_sample_type(1);
		}
	}
	out.set_duration_nanos(static_cast<int64_t>(p.duration_s * 1e9));
	out.add_comment(strings.index(printable("ljcore profile of process " +
						std::to_string(p.pid) + " (" + p.backend + ")")));
	for (const ProfileOutcome &o : p.outcomes)
		out.add_comment(strings.index(printable(o.outcome) + ": " +
					      std::to_string(o.samples) + " samples" +
					      (o.failure ? " (failed)" : "")));

	std::map<std::tuple<std::string, std::string, int>, uint64_t> functions;
	std::map<std::string, uint64_t> locations;
	auto location_id = [&](const ProfileFrame &f) {
		std::string label = profile_frame_label(f);
		auto [it, added] = locations.try_emplace(label, locations.size() + 1);
		if (!added)
			return it->second;
		std::string name = function_name(f), file = printable(f.file);
		auto [fn, new_function] =
			functions.try_emplace({name, file, f.line_defined}, functions.size() + 1);
		if (new_function) {
			pprof::Function *pf = out.add_function();
			pf->set_id(fn->second);
			pf->set_name(strings.index(name));
			pf->set_system_name(pf->name());
			pf->set_filename(strings.index(file));
			pf->set_start_line(std::max(f.line_defined, 0));
		}
		pprof::Location *loc = out.add_location();
		loc->set_id(it->second);
		pprof::Line *line = loc->add_line();
		line->set_function_id(fn->second);
		line->set_line(std::max(f.line, 0));
		return it->second;
	};
	for (const ProfileStack &s : p.stacks) {
		pprof::Sample *sample = out.add_sample();
		for (auto f = s.frames.rbegin(); f != s.frames.rend(); ++f)
			sample->add_location_id(location_id(*f)); // innermost first
		sample->add_value(static_cast<int64_t>(s.value));
		if (!bytes && period)
			sample->add_value(static_cast<int64_t>(s.value) * period);
		if (s.labels.activity != VmActivity::unknown) {
			pprof::Label *state = sample->add_label();
			state->set_key(strings.index("vm state"));
			state->set_str(strings.index(activity_name(s.labels.activity)));
		}
		if (s.labels.trace) {
			pprof::Label *trace = sample->add_label();
			trace->set_key(strings.index("trace"));
			trace->set_num(s.labels.trace);
		}
		add_request_labels(*sample, strings, s.labels.request);
	}
	return out.SerializeAsString();
}

void render_profile_pprof(std::ostream &out, const Profile &p)
{
	out << gzip(profile_pprof_message(p));
}

} // namespace ljcore
