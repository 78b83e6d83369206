// Per request, in nginx workers: what the samplers need to read the
// request a sampled coroutine serves (luajit/nginx_request.h), and that
// request as a profile label.
#pragma once

#include <optional>

#include "analyzer/model/profile_model.h"
#include "analyzer/nginx/nginx_layouts.h"
#include "luajit/bpf/request_sample.h"
#include "luajit/layout.h"

namespace ljcore {

// The samplers' offsets for an nginx worker of this nginx build whose VM
// has this layout; nullopt when its lua_State has no exdata (a LuaJIT
// other than OpenResty's luajit2, where the request is not kept there).
std::optional<lj_nginx_offsets> nginx_offsets(const NginxLayout &ngx, const lj_layout &ly);

// The request a sample copied, as its label: the path is the URI up to
// its query string; bytes the sampler could not copy end in "...".
ProfileRequest request_label(const lj_profile_request &r);

} // namespace ljcore
