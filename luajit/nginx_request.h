/*
 * The nginx request the sampled coroutine serves, read at sample time by
 * the BPF program (bpf/profile.bpf.c) and the userspace sampler alike:
 * lua-nginx-module keeps each handler coroutine's ngx_http_request_t * in
 * L->exdata (ngx_http_lua_set_req). A pointer is a live request when it
 * holds nginx's "HTTP" signature and its connection's current request is
 * it or its main request (the checks of analyzer/nginx/nginx_request.cpp,
 * less those of its pools): a request already answered fails, its memory
 * freed or its connection gone or serving the next. Rules as for
 * walker.h: the includer defines LJ_READ; no loops.
 */
#ifndef LJCORE_LUAJIT_NGINX_REQUEST_H
#define LJCORE_LUAJIT_NGINX_REQUEST_H

#include "bpf/request_sample.h"

#ifndef LJ_READ
#error "define LJ_READ(ctx, dst, addr, size) before including nginx_request.h"
#endif

#ifndef LJ_INLINE
#define LJ_INLINE static inline __attribute__((always_inline))
#endif

/* "HTTP" as ngx_http_request_t.signature holds it (NGX_HTTP_MODULE). */
#define LJ_NGINX_HTTP_SIGNATURE 0x50545448u

/* Up to max bytes of the ngx_str_t at `at` into dst, its length into *len.
 * Returns 0, or the address that could not be read. */
LJ_INLINE u64 lj_request_str(void *ctx, const struct lj_nginx_offsets *o, u64 at, char *dst,
			     u32 max, u16 *len)
{
	u64 n = 0, data = 0;
	u32 copy;

	if (LJ_READ(ctx, &n, at + o->str_len, 8) != 0 ||
	    LJ_READ(ctx, &data, at + o->str_data, 8) != 0)
		return at;
	*len = n > 0xffff ? 0xffff : (u16)n;
	copy = n > max ? max : (u32)n;
	if (copy && LJ_READ(ctx, dst, data, copy) != 0)
		return data;
	return 0;
}

/* The request coroutine L serves into *out. */
LJ_INLINE void lj_request_read(void *ctx, const struct lj_nginx_offsets *o, u64 L,
			       struct lj_profile_request *out)
{
	u64 r = 0, c = 0, main = 0, data = 0, host = 0, bad;
	u32 signature = 0;
	u8 status = 0;

	out->r = 0;
	out->bad_addr = 0;
	out->status = LJ_REQUEST_NONE;
	out->method_len = out->uri_len = out->host_len = 0;
	if (!L || !o->L_exdata)
		return;
	/* A coroutine that yielded (a cosocket, ngx.sleep) is g->cur_L until
	 * the next one runs: nginx's own code runs now, in no request. */
	if (LJ_READ(ctx, &status, L + o->L_status, 1) != 0 || status != 0)
		return;
	if (LJ_READ(ctx, &r, L + o->L_exdata, 8) != 0) {
		out->status = LJ_REQUEST_ENDED;
		out->bad_addr = L + o->L_exdata;
		return;
	}
	if (!r)
		return;
	out->r = r;
	out->status = LJ_REQUEST_ENDED;
	out->bad_addr = r;
	if (LJ_READ(ctx, &signature, r + o->r_signature, 4) != 0 ||
	    signature != LJ_NGINX_HTTP_SIGNATURE || LJ_READ(ctx, &c, r + o->r_connection, 8) != 0 ||
	    LJ_READ(ctx, &main, r + o->r_main, 8) != 0 ||
	    LJ_READ(ctx, &data, c + o->c_data, 8) != 0 || (data != r && data != main))
		return;
	out->status = LJ_REQUEST_UNREADABLE;
	bad = lj_request_str(ctx, o, r + o->r_method_name, out->method, LJ_REQUEST_METHOD_BYTES,
			     &out->method_len);
	if (!bad)
		bad = lj_request_str(ctx, o, r + o->r_unparsed_uri, out->uri, LJ_REQUEST_URI_BYTES,
				     &out->uri_len);
	/* No Host header (HTTP/1.0) leaves headers_in.host NULL. */
	if (!bad && LJ_READ(ctx, &host, r + o->r_headers_in_host, 8) != 0)
		bad = r + o->r_headers_in_host;
	if (!bad && host)
		bad = lj_request_str(ctx, o, host + o->elt_value, out->host, LJ_REQUEST_HOST_BYTES,
				     &out->host_len);
	if (bad) {
		out->bad_addr = bad;
		return;
	}
	out->bad_addr = 0;
	out->status = LJ_REQUEST_SERVED;
}

#endif
