/*
 * A host with five threads, each running its own LuaJIT VM, where four
 * sit idle when the main thread crashes in its VM: three back in C after
 * running some Lua, each keeping its lua_State another way (a local, a
 * __thread variable, a per-thread object on the heap, as wrk does), and one
 * parked inside Lua (an FFI read() on a pipe nobody writes). ljcore must
 * find all five VMs without a memory scan, each with its thread.
 *
 * Usage: idle_vms PARKED.lua CRASH.lua (run from their directory). The
 * scripts get the pipe ends as the globals PARK_FD (to read from) and
 * READY_FD (to say they are parked) and write their own debug.traceback to
 * the files named by ORACLE_PARKED and ORACLE. The file named by VMS gets a
 * line "TID L KIND" for each VM, as the host sees it: the thread's id, the
 * lua_State it made and how it keeps it (local, tls, object, lua, main).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lauxlib.h"
#include "lua.h"
#include "lualib.h"

#include "blocked.h"

static int park_fd[2], ready_fd[2];
static FILE *vms;
static pthread_mutex_t vms_lock = PTHREAD_MUTEX_INITIALIZER;
/* The workers' thread ids, each set before the worker says it is ready. */
static long worker_tid[4];
static size_t workers;

static __thread lua_State *tls_L;

/* A per-thread object that holds the VM, as wrk's `thread` does; the rest
 * of it keeps the next one's fields out of reach of a look into this one. */
struct worker {
	lua_State *L;
	char buffer[4096];
};

/* A new VM with the standard libraries and the pipe ends as globals, its
 * thread and lua_State written to the VMS file. */
static lua_State *new_vm(const char *kind)
{
	lua_State *L = luaL_newstate();
	if (!L) {
		fprintf(stderr, "%s: cannot create a lua_State\n", kind);
		exit(1);
	}
	luaL_openlibs(L);
	lua_pushinteger(L, park_fd[0]);
	lua_setglobal(L, "PARK_FD");
	lua_pushinteger(L, ready_fd[1]);
	lua_setglobal(L, "READY_FD");
	const long tid = (long)syscall(SYS_gettid);
	pthread_mutex_lock(&vms_lock);
	fprintf(vms, "%ld %p %s\n", tid, (void *)L, kind);
	fflush(vms);
	if (strcmp(kind, "main") != 0 && workers < sizeof worker_tid / sizeof worker_tid[0])
		worker_tid[workers++] = tid;
	pthread_mutex_unlock(&vms_lock);
	return L;
}

/* Some Lua, so that the VM has a heap, then back in C. */
static void run_some_lua(lua_State *L)
{
	if (luaL_dostring(L, "local t = {} for i = 1, 1000 do t[i] = tostring(i) end return #t")) {
		fprintf(stderr, "%s\n", lua_tostring(L, -1));
		exit(1);
	}
	lua_settop(L, 0);
}

/* Says the thread is ready, then blocks in C for ever (nobody writes). */
static __attribute__((noinline)) void wait_in_c(void)
{
	char byte;
	if (write(ready_fd[1], "r", 1) != 1 || read(park_fd[0], &byte, 1) != 1)
		exit(1);
}

static void *idle_local(void *arg)
{
	(void)arg;
	lua_State *L = new_vm("local");
	run_some_lua(L);
	wait_in_c();
	lua_close(L);
	return NULL;
}

static __attribute__((noinline)) void setup_tls(void)
{
	tls_L = new_vm("tls");
	run_some_lua(tls_L);
}

static void *idle_tls(void *arg)
{
	(void)arg;
	setup_tls();
	wait_in_c();
	lua_close(tls_L);
	return NULL;
}

static void *idle_object(void *arg)
{
	struct worker *w = arg;
	w->L = new_vm("object");
	run_some_lua(w->L);
	wait_in_c();
	lua_close(w->L);
	return NULL;
}

static int run_script(lua_State *L, const char *path)
{
	if (luaL_loadfile(L, path) != 0 || lua_pcall(L, 0, 0, 0) != 0) {
		fprintf(stderr, "%s: %s\n", path, lua_tostring(L, -1));
		return 1;
	}
	return 0;
}

static void *parked_in_lua(void *script)
{
	lua_State *L = new_vm("lua");
	run_script(L, script);
	lua_close(L);
	return NULL;
}

int main(int argc, char **argv)
{
	void *(*const idle[])(void *) = {idle_local, idle_tls, idle_object, parked_in_lua};
	const size_t n = sizeof idle / sizeof idle[0];
	struct worker *object = calloc(1, sizeof *object);
	const char *path = getenv("VMS");
	pthread_t thread;
	char byte;

	if (argc != 3) {
		fprintf(stderr, "usage: %s PARKED.lua CRASH.lua\n", argv[0]);
		return 2;
	}
	vms = fopen(path ? path : "/dev/null", "w");
	if (!vms || !object || pipe(park_fd) != 0 || pipe(ready_fd) != 0) {
		perror("idle_vms");
		return 1;
	}
	for (size_t i = 0; i < n; i++) {
		void *arg = idle[i] == idle_object ? (void *)object : argv[1];
		if (pthread_create(&thread, NULL, idle[i], arg) != 0) {
			fprintf(stderr, "pthread_create failed\n");
			return 1;
		}
	}
	/* Each idle thread writes one byte right before it blocks. */
	for (size_t i = 0; i < n; i++)
		if (read(ready_fd[0], &byte, 1) != 1) {
			fprintf(stderr, "a thread never got ready\n");
			return 1;
		}
	if (wait_blocked_on(worker_tid, workers, park_fd[0]) != 0) {
		fprintf(stderr, "a thread never blocked in its read\n");
		return 1;
	}
	return run_script(new_vm("main"), argv[2]);
}
