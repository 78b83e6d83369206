/*
 * For the C hosts: wait until worker threads are blocked in their read().
 *
 * A worker says it is ready just before its read() on a pipe nobody
 * writes; until it is in that read, it may still be running (a script
 * parked in Lua, between its FFI write and read, has a Lua function as its
 * innermost frame, not the read's). A core taken then shows another stack
 * than the worker's oracle, so the crash waits for the read.
 */
#include <stdio.h>
#include <sys/types.h>
#include <unistd.h>

/* Whether thread tid of this process is blocked in a system call whose
 * first argument is fd: /proc's syscall file reads "NR ARG1 ...", or
 * "running". Under qemu-user it shows the host's read, on the same fd. */
static int blocked_on(long tid, int fd)
{
	char path[64], line[256];
	long nr;
	unsigned long arg;
	snprintf(path, sizeof path, "/proc/self/task/%ld/syscall", tid);
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	int ok = fgets(line, sizeof line, f) && sscanf(line, "%ld %lx", &nr, &arg) == 2 &&
		 arg == (unsigned long)fd;
	fclose(f);
	return ok;
}

/* Waits until each of the n threads tid is blocked on fd: 0 when they
 * are, 1 when some still is not after ten seconds. */
static int wait_blocked_on(const long *tid, size_t n, int fd)
{
	for (int tries = 0; tries < 10000; tries++) {
		size_t blocked = 0;
		for (size_t i = 0; i < n; i++)
			blocked += blocked_on(tid[i], fd);
		if (blocked == n)
			return 0;
		usleep(1000);
	}
	return 1;
}
