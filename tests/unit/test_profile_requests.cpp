// profile --by-request: the request a sampler copied, as a label, and the
// views of a profile by request.
#include <doctest/doctest.h>

#include <cstring>
#include <sstream>

#include "analyzer/profile/request_tags.h"
#include "cli/render_profile.h"

using namespace ljcore;

namespace {

// A request as the samplers copy it: at most their bytes of each string,
// with its full length.
lj_profile_request copied(const std::string &method, const std::string &uri,
			  const std::string &host)
{
	lj_profile_request r{};
	r.status = LJ_REQUEST_SERVED;
	r.method_len = uint16_t(method.size());
	r.uri_len = uint16_t(uri.size());
	r.host_len = uint16_t(host.size());
	memcpy(r.method, method.data(), std::min(method.size(), sizeof r.method));
	memcpy(r.uri, uri.data(), std::min(uri.size(), sizeof r.uri));
	memcpy(r.host, host.data(), std::min(host.size(), sizeof r.host));
	return r;
}

ProfileStack stack_of(ProfileRequest request, uint64_t value)
{
	ProfileFrame f;
	f.name = "handler";
	f.file = "content_by_lua(nginx.conf:10)";
	f.line = 12;
	f.line_defined = 11;
	ProfileStack s{{f}, value, {}};
	s.labels.request = std::move(request);
	return s;
}

} // namespace

TEST_CASE("a copied request's label: path without its query, cuts marked")
{
	ProfileRequest q = request_label(copied("GET", "/api/items?id=7&x=?", "example.org"));
	CHECK(q.status == ProfileRequest::Status::served);
	CHECK(q.method == "GET");
	CHECK(q.path == "/api/items");
	CHECK(q.host == "example.org");
	CHECK(profile_request_label(q) == "GET /api/items");

	// A path longer than the copy, with its '?' past it: cut, and said so.
	std::string long_path = "/" + std::string(300, 'a') + "?q=1";
	q = request_label(copied("POST", long_path, ""));
	CHECK(q.path == long_path.substr(0, LJ_REQUEST_URI_BYTES) + "...");
	CHECK(q.host.empty());

	lj_profile_request none{};
	CHECK(request_label(none).status == ProfileRequest::Status::none);
	lj_profile_request answered = copied("GET", "/x", "h");
	answered.status = LJ_REQUEST_ENDED;
	CHECK(request_label(answered).status == ProfileRequest::Status::none);
	lj_profile_request bad{};
	bad.status = LJ_REQUEST_UNREADABLE;
	bad.uri_len = 9999; // whatever it copied is not shown
	CHECK(request_label(bad) == ProfileRequest{ProfileRequest::Status::unreadable, "", "", ""});
	// A length nginx would never have is cut to the copy, not read past it.
	lj_profile_request odd = copied("GET", "/x", "h");
	odd.method_len = 0xffff;
	CHECK(request_label(odd).method.size() == LJ_REQUEST_METHOD_BYTES + 3);
}

TEST_CASE("--by-request roots each stack at its request")
{
	ProfileRequest heavy{ProfileRequest::Status::served, "GET", "/heavy;x", "h\xff"};
	Profile p;
	p.stacks = {stack_of(heavy, 3), stack_of({}, 1),
		    stack_of({ProfileRequest::Status::unreadable, "", "", ""}, 2)};
	std::ostringstream folded;
	render_profile_folded(folded, profile_by_request(p));
	CHECK(folded.str() == "GET /heavy:x;handler content_by_lua(nginx.conf:10):12 3\n"
			      "[no request];handler content_by_lua(nginx.conf:10):12 1\n"
			      "[request unreadable];handler content_by_lua(nginx.conf:10):12 2\n");

	p.samples = 6;
	p.outcomes = {{"Lua", 6, false}};
	std::ostringstream top;
	render_profile_top_requests(top, p);
	CHECK(top.str() == "   samples   share  request (Host)\n"
			   "         3  50.00%  GET /heavy;x (h\\xff)\n"
			   "         2  33.33%  [request unreadable]\n"
			   "         1  16.67%  [no request]\n"
			   "\n6 samples:\n"
			   "         6 100.00%  Lua\n");
}
