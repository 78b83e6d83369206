/*
 * The nginx request a profile sample's coroutine serves, as the samplers
 * read it at sample time (../nginx_request.h): the offsets they read it
 * through, and the bytes they copy. Copied then, not read later by its
 * pointer: the request is freed, and its memory reused, once answered.
 * Plain C, no libc, for both compilers.
 */
#ifndef LJCORE_LUAJIT_BPF_REQUEST_SAMPLE_H
#define LJCORE_LUAJIT_BPF_REQUEST_SAMPLE_H

#include "../types.h"

/* Bytes copied of each string; their lengths say what was cut. The URI is
 * cut at its '?' by the reader (analyzer/profile/request_label.cpp). */
#define LJ_REQUEST_METHOD_BYTES 16
#define LJ_REQUEST_URI_BYTES 128
#define LJ_REQUEST_HOST_BYTES 64

/* One per nginx worker profiled, keyed by its tgid: where lua_State keeps
 * its status and exdata (OpenResty's luajit2, where lua-nginx-module keeps
 * the request), and the nginx offsets of analyzer/nginx/nginx_layouts.h. */
struct lj_nginx_offsets {
	u16 L_status;
	u16 L_exdata;
	u16 r_signature;
	u16 r_connection;
	u16 r_main;
	u16 r_method_name;
	u16 r_unparsed_uri;
	u16 r_headers_in_host;
	u16 c_data;
	u16 elt_value;
	u16 str_len;
	u16 str_data;
};

enum lj_request_status {
	LJ_REQUEST_NONE = 0,   /* no request: L->exdata is NULL, or no nginx */
	LJ_REQUEST_SERVED,     /* the request below */
	LJ_REQUEST_ENDED,      /* L->exdata (r) is no live request: answered */
	LJ_REQUEST_UNREADABLE, /* a live request's strings: see bad_addr */
};

struct lj_profile_request {
	u64 r;        /* ngx_http_request_t *, 0 if none */
	u64 bad_addr; /* LJ_REQUEST_UNREADABLE: what could not be read, or r */
	u32 status;   /* enum lj_request_status */
	/* The strings' lengths as nginx has them (0xffff: longer); at most
	 * LJ_REQUEST_*_BYTES of each copied. host_len 0: no Host header. */
	u16 method_len;
	u16 uri_len;
	u16 host_len;
	u16 pad[3];
	char method[LJ_REQUEST_METHOD_BYTES];
	char uri[LJ_REQUEST_URI_BYTES];
	char host[LJ_REQUEST_HOST_BYTES];
};

#endif
