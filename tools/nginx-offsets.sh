#!/usr/bin/env bash
# Prints the nginx struct offsets ljcore reads (analyzer/nginx/nginx_layouts.cpp)
# for the nginx build whose sources Debian's nginx-dev package installs under
# /usr/share/nginx/src: runs nginx's ./configure there with the flags the
# package built nginx with (conf_flags), then compiles a small C program
# against the resulting headers and prints offsetof() of each member.
# Usage: tools/nginx-offsets.sh [source dir]  (needs a C compiler, nginx-dev)
set -euo pipefail

src=${1:-/usr/share/nginx/src}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$src/." "$work/"
cd "$work"
# shellcheck source=/dev/null
source ./conf_flags
./configure "${NGX_CONF_FLAGS[@]}" >configure.log 2>&1 ||
	{ tail configure.log >&2; exit 1; }

cat >offsets.c <<'C'
#include <ngx_config.h>
#include <ngx_core.h>
#include <ngx_http.h>
#include <stdio.h>

#define FIELD(name, type, member) printf("\t.%s = %zu,\n", name, offsetof(type, member))

int main(void)
{
	FIELD("r_signature", ngx_http_request_t, signature);
	FIELD("r_connection", ngx_http_request_t, connection);
	FIELD("r_main", ngx_http_request_t, main);
	FIELD("r_pool", ngx_http_request_t, pool);
	FIELD("r_method_name", ngx_http_request_t, method_name);
	FIELD("r_unparsed_uri", ngx_http_request_t, unparsed_uri);
	FIELD("r_headers_in_host", ngx_http_request_t, headers_in.host);
	FIELD("c_data", ngx_connection_t, data);
	FIELD("c_pool", ngx_connection_t, pool);
	FIELD("c_addr_text", ngx_connection_t, addr_text);
	FIELD("elt_value", ngx_table_elt_t, value);
	FIELD("str_len", ngx_str_t, len);
	FIELD("str_data", ngx_str_t, data);
	FIELD("pool_last", ngx_pool_t, d.last);
	FIELD("pool_end", ngx_pool_t, d.end);
	return 0;
}
C
cc -I src/core -I src/event -I src/event/modules -I src/os/unix -I src/http \
	-I src/http/modules -I src/http/v2 -I objs -o offsets offsets.c
./offsets
