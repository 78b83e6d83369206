#include "cli/profile_diff.h"

#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include <zlib.h>

#include "cli/exit_codes.h"
#include "cli/pprof.pb.h"
#include "cli/render_bytes.h"
#include "cli/render_profile.h"
#include "readers/error.h"

namespace ljcore {

namespace {

// A saved profile is read whole; larger ones (or ones that inflate to
// more) are refused rather than exhausting memory.
constexpr size_t max_profile_bytes = size_t(1) << 30;

using Stacks = std::map<std::vector<std::string>, uint64_t>;

Expected<std::string> read_file(const std::string &path)
{
	std::ifstream in(path, std::ios::binary);
	if (!in)
		return fail("cannot read " + path);
	std::string data;
	char buf[1 << 16];
	while (in.read(buf, sizeof buf) || in.gcount() > 0) {
		data.append(buf, size_t(in.gcount()));
		if (data.size() > max_profile_bytes)
			return fail(path + " is larger than 1 GiB");
	}
	return data;
}

Expected<std::string> gunzip(const std::string &data, const std::string &path)
{
	z_stream z{};
	if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
		return fail(path + ": cannot start inflating");
	z.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(data.data()));
	z.avail_in = static_cast<uInt>(data.size());
	std::string out;
	char buf[1 << 16];
	int status = Z_OK;
	while (status == Z_OK) {
		z.next_out = reinterpret_cast<Bytef *>(buf);
		z.avail_out = sizeof buf;
		status = inflate(&z, Z_NO_FLUSH);
		out.append(buf, sizeof buf - z.avail_out);
		if (out.size() > max_profile_bytes)
			status = Z_MEM_ERROR;
	}
	inflateEnd(&z);
	if (status != Z_STREAM_END)
		return fail(path + ": not a whole gzip stream");
	return out;
}

// pprof's samples as stacks of "function file:line" labels, root first,
// as ljcore's own formats label Lua frames; a frame without a file is its
// function's name alone. The first sample type counts samples.
Expected<Stacks> pprof_stacks(const std::string &message, const std::string &path)
{
	pprof::Profile p;
	if (!p.ParseFromString(message))
		return fail(path + ": neither folded stacks nor a pprof profile");
	auto str = [&](int64_t i) {
		return i >= 0 && i < p.string_table_size() ? p.string_table(int(i)) : std::string();
	};
	std::map<uint64_t, const pprof::Function *> functions;
	for (const pprof::Function &f : p.function())
		functions[f.id()] = &f;
	// A location's frames, innermost first (its lines: inlined first).
	std::map<uint64_t, std::vector<std::string>> locations;
	for (const pprof::Location &loc : p.location()) {
		std::vector<std::string> &frames = locations[loc.id()];
		for (const pprof::Line &line : loc.line()) {
			auto f = functions.find(line.function_id());
			std::string name = f != functions.end() ? str(f->second->name()) : "?";
			std::string file = f != functions.end() ? str(f->second->filename()) : "";
			frames.push_back(printable(file.empty()
							   ? name
							   : name + " " + file + ":" +
								     std::to_string(line.line())));
		}
		if (loc.line_size() == 0)
			frames.push_back("[unknown]");
	}
	Stacks stacks;
	for (const pprof::Sample &s : p.sample()) {
		std::vector<std::string> frames;
		for (uint64_t id : s.location_id()) {
			auto it = locations.find(id);
			if (it == locations.end())
				return fail(path + ": a sample names location " +
					    std::to_string(id) + ", which is not there");
			frames.insert(frames.end(), it->second.begin(), it->second.end());
		}
		std::reverse(frames.begin(), frames.end());
		if (s.value_size() > 0 && s.value(0) > 0)
			stacks[frames] += uint64_t(s.value(0));
	}
	return stacks;
}

// Folded stacks: "frame;frame;... count" lines. Empty if any line is not.
std::optional<Stacks> folded_stacks(const std::string &text)
{
	Stacks stacks;
	std::istringstream in(text);
	for (std::string line; std::getline(in, line);) {
		if (line.empty())
			continue;
		size_t space = line.rfind(' ');
		if (space == std::string::npos || space + 1 == line.size() ||
		    line.find_first_not_of("0123456789", space + 1) != std::string::npos ||
		    line.size() - space > 19)
			return std::nullopt;
		std::vector<std::string> frames;
		std::istringstream labels(line.substr(0, space));
		for (std::string label; std::getline(labels, label, ';');)
			frames.push_back(label);
		stacks[frames] += std::stoull(line.substr(space + 1));
	}
	return stacks;
}

Expected<Stacks> read_profile(const std::string &path)
{
	auto data = read_file(path);
	if (!data)
		return std::unexpected(data.error());
	if (data->size() >= 2 && uint8_t((*data)[0]) == 0x1f && uint8_t((*data)[1]) == 0x8b) {
		auto message = gunzip(*data, path);
		if (!message)
			return std::unexpected(message.error());
		return pprof_stacks(*message, path);
	}
	if (auto folded = folded_stacks(*data))
		return *folded;
	return pprof_stacks(*data, path);
}

uint64_t total(const Stacks &s)
{
	uint64_t n = 0;
	for (auto &[frames, value] : s)
		n += value;
	return n;
}

} // namespace

int profile_diff_command(const std::string &before, const std::string &after,
			 const std::string &format, const std::string &output)
{
	auto b = read_profile(before);
	auto a = b ? read_profile(after) : b;
	if (!b || !a) {
		std::cerr << "ljcore: " << printable((!b ? b : a).error().message) << "\n";
		return exit_unreadable;
	}
	ProfileDiff d;
	d.before_name = printable(before);
	d.after_name = printable(after);
	d.before_total = total(*b);
	d.after_total = total(*a);
	// As difffolded.pl -n: before scaled to after's samples, so that
	// profiles of different lengths compare by share.
	double scale = d.before_total ? double(d.after_total) / double(d.before_total) : 0;
	std::map<std::vector<std::string>, DiffStack> stacks;
	for (auto &[frames, n] : *b)
		stacks[frames].before += double(n) * scale;
	for (auto &[frames, n] : *a)
		stacks[frames].after += n;
	for (auto &[frames, s] : stacks) {
		s.frames = frames;
		d.stacks.push_back(std::move(s));
	}
	std::ofstream file;
	if (!output.empty()) {
		file.open(output, std::ios::binary);
		if (!file) {
			std::cerr << "ljcore: cannot write " << printable(output) << "\n";
			return exit_usage;
		}
	}
	std::ostream &out = output.empty() ? std::cout : file;
	if (format == "svg")
		render_profile_svg_diff(out, d);
	else if (format == "folded")
		render_profile_folded_diff(out, d);
	else
		render_profile_top_diff(out, d);
	return exit_ok;
}

} // namespace ljcore
