// Offsets of the nginx structures a request is read through
// (ngx_http_request_t, ngx_connection_t, ngx_str_t, ngx_pool_t), per
// nginx build: they move with nginx's version and ./configure options.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "readers/diagnostics.h"
#include "readers/native_stack.h"

namespace ljcore {

struct NginxLayout {
	const char *name;     // which build, e.g. "Debian 12 nginx 1.22.1-9+deb12u11 amd64"
	const char *build_id; // of the nginx executable, lowercase hex
	uint16_t r_signature; // ngx_http_request_t
	uint16_t r_connection;
	uint16_t r_main;
	uint16_t r_pool;
	uint16_t r_method_name; // ngx_str_t
	uint16_t r_unparsed_uri;
	uint16_t r_headers_in_host; // ngx_table_elt_t *
	uint16_t c_data;            // ngx_connection_t
	uint16_t c_pool;
	uint16_t c_addr_text;
	uint16_t elt_value; // ngx_table_elt_t
	uint16_t str_len;   // ngx_str_t
	uint16_t str_data;
	uint16_t pool_last; // ngx_pool_t d.last, d.end
	uint16_t pool_end;
};

// The built-in table for the nginx executable with this build id, or
// nullptr when there is none.
const NginxLayout *builtin_nginx_layout(std::string_view build_id);

// The layout of the nginx executable among a process's modules: nullptr
// when there is none, or when its build has no table (then evidence says
// so).
const NginxLayout *nginx_layout_of(const std::vector<ModuleInfo> &modules, Diagnostics &diag);

} // namespace ljcore
