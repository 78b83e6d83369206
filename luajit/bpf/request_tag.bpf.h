/*
 * The nginx request a sample's coroutine serves, read when the sample is
 * taken (luajit/nginx_request.h): by profile.bpf.c on the CPU and by
 * offcpu.bpf.c at the switch out. Userspace fills the map per worker
 * (Sampler::add_nginx). Include after sample.bpf.h, which defines LJ_READ.
 */
#ifndef LJCORE_REQUEST_TAG_BPF_H
#define LJCORE_REQUEST_TAG_BPF_H

#include "../nginx_request.h"

/* nginx workers: where their coroutines' requests are (tag_request). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, struct lj_nginx_offsets);
} nginx SEC(".maps");

/* The request the walked coroutine serves, now: once answered, its memory
 * is reused. */
static void tag_request(__u32 pid, struct lj_profile_sample *out)
{
	const struct lj_nginx_offsets *o = bpf_map_lookup_elem(&nginx, &pid);

	out->request.status = LJ_REQUEST_NONE;
	if (o && out->source == LJ_PROFILE_WALKED)
		lj_request_read(0, o, out->L, &out->request);
}

#endif
