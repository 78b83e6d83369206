/*
 * A host with two threads, each running its own LuaJIT VM: a worker
 * thread parks inside Lua (an FFI read() on a pipe nobody writes), then the
 * main thread crashes in its own VM. ljcore must find both VMs and put each
 * one's Lua frames on its own thread.
 *
 * Usage: two_vms PARKED.lua CRASH.lua (run from their directory, so chunk
 * names are the file names). The scripts get the pipe ends as the globals
 * PARK_FD (to read from) and READY_FD (to say they are parked) and write
 * their own debug.traceback to the files named by ORACLE_PARKED and ORACLE.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lauxlib.h"
#include "lua.h"
#include "lualib.h"

#include "blocked.h"

static int park_fd[2], ready_fd[2];
/* The worker's thread id, set before it says it is ready. */
static long worker_tid;

/* A new VM with the standard libraries and the pipe ends as globals, that
 * runs the script through lua_pcall (C -> Lua). */
static int run_script(const char *path)
{
	lua_State *L = luaL_newstate();
	if (!L) {
		fprintf(stderr, "%s: cannot create a lua_State\n", path);
		return 1;
	}
	luaL_openlibs(L);
	lua_pushinteger(L, park_fd[0]);
	lua_setglobal(L, "PARK_FD");
	lua_pushinteger(L, ready_fd[1]);
	lua_setglobal(L, "READY_FD");
	if (luaL_loadfile(L, path) != 0 || lua_pcall(L, 0, 0, 0) != 0) {
		fprintf(stderr, "%s: %s\n", path, lua_tostring(L, -1));
		return 1;
	}
	lua_close(L);
	return 0;
}

static void *parked_thread(void *script)
{
	worker_tid = (long)syscall(SYS_gettid);
	run_script(script);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t worker;
	char byte;

	if (argc != 3) {
		fprintf(stderr, "usage: %s PARKED.lua CRASH.lua\n", argv[0]);
		return 2;
	}
	if (pipe(park_fd) != 0 || pipe(ready_fd) != 0) {
		perror("pipe");
		return 1;
	}
	if (pthread_create(&worker, NULL, parked_thread, argv[1]) != 0) {
		fprintf(stderr, "pthread_create failed\n");
		return 1;
	}
	/* The worker writes one byte right before it blocks in read(). */
	if (read(ready_fd[0], &byte, 1) != 1) {
		fprintf(stderr, "the parked script never got ready\n");
		return 1;
	}
	if (wait_blocked_on(&worker_tid, 1, park_fd[0]) != 0) {
		fprintf(stderr, "the parked script never blocked in its read\n");
		return 1;
	}
	return run_script(argv[2]);
}
