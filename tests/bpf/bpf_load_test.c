/*
 * Loads the walker's eBPF program (walker_prog.bpf.o) through the kernel
 * verifier. A machine that refuses bpf() altogether (no privilege, no
 * kernel support) makes the test skip with the reason; the verifier
 * rejecting our program is a failure, with its log.
 * Exit: 0 loaded, 1 rejected, 77 skipped.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>

static char verifier_log[1 << 20];

/* Can this machine load any BPF program at all? 0, or the errno. */
static int probe_bpf(void)
{
	struct bpf_insn ret0[] = {
		{.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0},
		{.code = BPF_JMP | BPF_EXIT},
	};
	int fd = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, "ljcore_probe", "GPL", ret0, 2, NULL);
	if (fd < 0)
		return -fd;
	close(fd);
	return 0;
}

static int print_libbpf(enum libbpf_print_level level, const char *fmt, va_list args)
{
	return level == LIBBPF_DEBUG ? 0 : vfprintf(stderr, fmt, args);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s walker_prog.bpf.o\n", argv[0]);
		return 2;
	}
	libbpf_set_print(print_libbpf);
	int err = probe_bpf();
	if (err) {
		printf("skip: this machine refuses bpf() program loads: %s%s\n", strerror(err),
		       err == EPERM ? " (needs CAP_BPF or root, and unprivileged BPF may be off)"
				    : "");
		return 77;
	}
	struct bpf_object *obj = bpf_object__open_file(argv[1], NULL);
	if (!obj) {
		printf("cannot open %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	struct bpf_program *prog = bpf_object__find_program_by_name(obj, "walk_lua_frames");
	if (!prog) {
		printf("%s has no program walk_lua_frames\n", argv[1]);
		return 1;
	}
	bpf_program__set_log_buf(prog, verifier_log, sizeof verifier_log);
	bpf_program__set_log_level(prog, 1 | 4); /* verbose on failure, stats */
	if (bpf_object__load(obj) != 0) {
		printf("the verifier rejected the walker:\n%s\n", verifier_log);
		bpf_object__close(obj);
		return 1;
	}
	/* The last line of the log holds the verifier's statistics. */
	const char *stats = strstr(verifier_log, "processed ");
	printf("walker loaded: %s", stats ? stats : "(no statistics)\n");
	bpf_object__close(obj);
	return 0;
}
