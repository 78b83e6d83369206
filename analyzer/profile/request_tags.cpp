#include "analyzer/profile/request_tags.h"

#include <algorithm>
#include <string_view>

#include "analyzer/lua/lua_state.h"

namespace ljcore {

namespace {

// The bytes of a string the sampler copied (at most copied of its len),
// marked where it was cut.
std::string copied_string(const char *bytes, size_t copied, size_t len)
{
	std::string s(bytes, std::min(copied, len));
	if (len > copied)
		s += "...";
	return s;
}

} // namespace

std::optional<lj_nginx_offsets> nginx_offsets(const NginxLayout &ngx, const lj_layout &ly)
{
	auto exdata = exdata_offset(ly);
	if (!exdata)
		return std::nullopt;
	lj_nginx_offsets o{};
	o.L_status = ly.L_status;
	o.L_exdata = uint16_t(*exdata);
	o.r_signature = ngx.r_signature;
	o.r_connection = ngx.r_connection;
	o.r_main = ngx.r_main;
	o.r_method_name = ngx.r_method_name;
	o.r_unparsed_uri = ngx.r_unparsed_uri;
	o.r_headers_in_host = ngx.r_headers_in_host;
	o.c_data = ngx.c_data;
	o.elt_value = ngx.elt_value;
	o.str_len = ngx.str_len;
	o.str_data = ngx.str_data;
	return o;
}

ProfileRequest request_label(const lj_profile_request &r)
{
	ProfileRequest q;
	// An answered request's coroutine is in none.
	if (r.status == LJ_REQUEST_NONE || r.status == LJ_REQUEST_ENDED)
		return q;
	if (r.status != LJ_REQUEST_SERVED) {
		q.status = ProfileRequest::Status::unreadable;
		return q;
	}
	q.status = ProfileRequest::Status::served;
	q.method = copied_string(r.method, sizeof r.method, r.method_len);
	q.host = copied_string(r.host, sizeof r.host, r.host_len);
	// The query string goes: a path with it would make a request per
	// argument. A '?' past what was copied leaves the path cut.
	std::string_view uri(r.uri, std::min<size_t>(sizeof r.uri, r.uri_len));
	size_t query = uri.find('?');
	if (query != std::string_view::npos)
		q.path = std::string(uri.substr(0, query));
	else
		q.path = copied_string(r.uri, sizeof r.uri, r.uri_len);
	return q;
}

} // namespace ljcore
