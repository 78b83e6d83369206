// The nginx request an OpenResty coroutine serves: lua-nginx-module keeps
// the ngx_http_request_t * of each request handler's coroutine in
// L->exdata when built against OpenResty's luajit2 (ngx_http_lua_get_req,
// Debian's libnginx-mod-http-lua does), and as the lightuserdata global
// "__ngx_req" of the coroutine's environment otherwise.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analyzer/lua/vm.h"
#include "analyzer/model/analysis.h"
#include "analyzer/nginx/nginx_layouts.h"

namespace ljcore {

// The requests the coroutines Ls serve, in that order. A coroutine whose
// request pointer is absent or does not hold up against memory yields no
// request; why goes to diag as evidence.
std::vector<NginxRequest> served_requests(const Vm &vm, const NginxLayout &ngx,
					  const std::vector<uint64_t> &Ls, Diagnostics &diag);

} // namespace ljcore
