#include "analyzer/nginx/nginx_request.h"

#include <algorithm>
#include <expected>

#include "analyzer/lua/lua_state.h"
#include "analyzer/model/lua_text.h"
#include "analyzer/values/lua_path.h"
#include "analyzer/values/lua_table.h"
#include "analyzer/values/lua_values.h"
#include "readers/error.h"

namespace ljcore {
namespace {

// Longer than any method, URI, Host or address nginx accepts with its
// default buffers (large_client_header_buffers 4 8k): a longer ngx_str_t
// is not one.
constexpr uint64_t max_str_len = 64 * 1024;
// "HTTP" as ngx_http_request_t.signature holds it (NGX_HTTP_MODULE).
constexpr uint32_t http_signature = 0x50545448;

// The request pointer a coroutine's handler would get from
// ngx_http_lua_get_req(), and where it was found.
Expected<std::pair<uint64_t, std::string>> request_pointer(const Vm &mem, uint64_t L)
{
	LuaState state(mem, L);
	if (auto r = state.exdata()) {
		if (!*r)
			return fail("L->exdata unreadable: " + r->error().reason);
		return std::pair{**r, std::string("L->exdata")};
	}
	auto env = state.env();
	if (!env)
		return fail("L->env unreadable: " + env.error().reason);
	auto raw = table_get(mem, *env, LuaKey{LuaKey::Kind::string, "__ngx_req"});
	if (!raw)
		return std::unexpected(raw.error());
	LuaValue v = ValueReader(mem, 0, ValueLimits{}, {}).of_raw(*raw);
	if (v.type == LuaValue::Type::nil)
		return std::pair{uint64_t(0), std::string("__ngx_req global")};
	if (v.type != LuaValue::Type::lightuserdata)
		return fail("__ngx_req is not a lightuserdata");
	return std::pair{v.address, std::string("__ngx_req global")};
}

// An ngx_str_t's bytes, if its length is bounded and they are readable.
Expected<std::string> ngx_str(const Memory &mem, const NginxLayout &ngx, uint64_t at,
			      const char *what)
{
	auto len = mem.read_value<uint64_t>(at + ngx.str_len);
	auto data = mem.read_value<uint64_t>(at + ngx.str_data);
	if (!len || !data)
		return fail(std::string(what) + " unreadable at " + luajit_pointer(at));
	if (*len > max_str_len)
		return fail(std::string(what) + " claims " + std::to_string(*len) + " bytes");
	std::string s(*len, '\0');
	if (!mem.read(*data, std::as_writable_bytes(std::span(s))))
		return fail(std::string(what) + " bytes unreadable at " + luajit_pointer(*data));
	return s;
}

// A pool nginx allocates from: its free space lies between d.last and
// d.end, both past the pool's own header.
bool sane_pool(const Memory &mem, const NginxLayout &ngx, uint64_t pool)
{
	auto last = mem.read_value<uint64_t>(pool + ngx.pool_last);
	auto end = mem.read_value<uint64_t>(pool + ngx.pool_end);
	return pool && last && end && pool < *last && *last <= *end;
}

// The request at r, checked against memory: its signature, its pool, and
// its connection, whose current request is it or its main request.
Expected<NginxRequest> read_request(const Memory &mem, const NginxLayout &ngx, uint64_t r)
{
	auto sig = mem.read_value<uint32_t>(r + ngx.r_signature);
	if (!sig)
		return fail("request " + luajit_pointer(r) + " unreadable");
	if (*sig != http_signature)
		return fail("request " + luajit_pointer(r) + " has no \"HTTP\" signature");
	auto pool = mem.read_value<uint64_t>(r + ngx.r_pool);
	if (!pool || !sane_pool(mem, ngx, *pool))
		return fail("request " + luajit_pointer(r) + " has no sane pool");
	auto c = mem.read_value<uint64_t>(r + ngx.r_connection);
	auto main = mem.read_value<uint64_t>(r + ngx.r_main);
	auto data = c ? mem.read_value<uint64_t>(*c + ngx.c_data) : std::unexpected(c.error());
	if (!main || !data || (*data != r && *data != *main))
		return fail("request " + luajit_pointer(r) +
			    ": its connection does not point back to it");
	auto c_pool = mem.read_value<uint64_t>(*c + ngx.c_pool);
	if (!c_pool || !sane_pool(mem, ngx, *c_pool))
		return fail("connection " + luajit_pointer(*c) + " has no sane pool");

	NginxRequest q;
	q.request = r;
	auto method = ngx_str(mem, ngx, r + ngx.r_method_name, "method_name");
	auto uri = ngx_str(mem, ngx, r + ngx.r_unparsed_uri, "unparsed_uri");
	auto client = ngx_str(mem, ngx, *c + ngx.c_addr_text, "addr_text");
	for (auto *s : {&method, &uri, &client})
		if (!*s)
			return std::unexpected(s->error());
	q.method = *method;
	q.uri = *uri;
	q.client = *client;
	// No Host header (HTTP/1.0) leaves headers_in.host NULL.
	auto host = mem.read_value<uint64_t>(r + ngx.r_headers_in_host);
	if (!host)
		return fail("headers_in.host unreadable");
	if (*host) {
		auto value = ngx_str(mem, ngx, *host + ngx.elt_value, "Host header");
		if (!value)
			return std::unexpected(value.error());
		q.host = *value;
	}
	return q;
}

} // namespace

std::vector<NginxRequest> served_requests(const Vm &mem, const NginxLayout &ngx,
					  const std::vector<uint64_t> &Ls,
					  Diagnostics &diag)
{
	std::vector<NginxRequest> requests;
	for (uint64_t L : Ls) {
		std::string who = "nginx request of coroutine " + luajit_pointer(L) + ": ";
		auto ptr = request_pointer(mem, L);
		if (!ptr) {
			diag.evidence(who + ptr.error().message);
			continue;
		}
		auto [r, found_by] = *ptr;
		if (!r) {
			diag.evidence(who + "none (" + found_by + " is NULL)");
			continue;
		}
		auto q = read_request(mem.memory(), ngx, r);
		if (!q) {
			diag.evidence(who + "none, " + q.error().message);
			continue;
		}
		q->L = L;
		q->found_by = found_by;
		diag.evidence(who + luajit_pointer(r) + " through " + found_by);
		requests.push_back(std::move(*q));
	}
	return requests;
}

} // namespace ljcore
