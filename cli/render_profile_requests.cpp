// ljcore profile --by-request: an nginx worker's samples by the request
// their coroutine served (analyzer/profile/request_tags.h), as the root
// frame of each stack or as a table.
#include <algorithm>
#include <cstdio>
#include <map>

#include "cli/render_bytes.h"
#include "cli/render_profile.h"

namespace ljcore {

std::string profile_request_label(const ProfileRequest &r)
{
	switch (r.status) {
	case ProfileRequest::Status::served:
		return r.method + " " + r.path;
	case ProfileRequest::Status::unreadable:
		return "[request unreadable]";
	case ProfileRequest::Status::none:
		break;
	}
	return "[no request]";
}

Profile profile_by_request(const Profile &p)
{
	Profile rooted = p;
	for (ProfileStack &s : rooted.stacks) {
		ProfileFrame root;
		if (s.labels.request.status == ProfileRequest::Status::served) {
			root.kind = ProfileFrameKind::request;
			root.name = profile_request_label(s.labels.request);
		} else {
			// "[no request]": a state's label is its name in brackets.
			std::string label = profile_request_label(s.labels.request);
			root.kind = ProfileFrameKind::state;
			root.name = label.substr(1, label.size() - 2);
		}
		s.frames.insert(s.frames.begin(), std::move(root));
	}
	return rooted;
}

void render_profile_top_requests(std::ostream &out, const Profile &p)
{
	// By what the table shows: the method and path, and the Host.
	std::map<std::pair<std::string, std::string>, uint64_t> requests;
	uint64_t samples = 0;
	for (const ProfileStack &s : p.stacks) {
		samples += s.value;
		requests[{profile_request_label(s.labels.request), s.labels.request.host}] +=
			s.value;
	}
	std::vector<std::pair<std::pair<std::string, std::string>, uint64_t>> rows(requests.begin(),
										   requests.end());
	std::stable_sort(rows.begin(), rows.end(),
			 [](const auto &a, const auto &b) { return a.second > b.second; });
	char line[64];
	snprintf(line, sizeof line, "%10s %7s  ", "samples", "share");
	out << line << "request (Host)\n";
	for (const auto &[request, n] : rows) {
		snprintf(line, sizeof line, "%10llu %6.2f%%  ", static_cast<unsigned long long>(n),
			 samples ? 100.0 * double(n) / double(samples) : 0.0);
		out << line << printable(request.first);
		if (!request.second.empty())
			out << " (" << printable(request.second) << ")";
		out << "\n";
	}
	out << "\n" << p.samples << " samples:\n";
	for (const ProfileOutcome &o : p.outcomes) {
		snprintf(line, sizeof line, "%10llu %6.2f%%  ",
			 static_cast<unsigned long long>(o.samples),
			 p.samples ? 100.0 * double(o.samples) / double(p.samples) : 0.0);
		out << line << printable(o.outcome) << "\n";
	}
}

} // namespace ljcore
