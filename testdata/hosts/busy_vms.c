/*
 * A busy multi-VM host, as sysbench is: worker threads each run their own
 * LuaJIT VM in a tight loop of operations the interpreter hands to C
 * helpers, and the main thread crashes in its own VM while they run. The
 * kernel stops each worker wherever it is, now and then right after the
 * interpreter stored BASE to L->base and reused its register for a C
 * argument: ljcore must still walk every worker's stack whole.
 *
 * Usage: busy_vms WORKER.lua CRASH.lua NWORKERS (run from their directory,
 * so chunk names are the file names). Every script gets READY_FD, a pipe
 * end to say it runs, and c_add, a C function; CRASH.lua writes its
 * debug.traceback to the file named by ORACLE.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "lauxlib.h"
#include "lua.h"
#include "lualib.h"

#define MAX_WORKERS 16

static int ready_fd[2];

/* c_add(a, b): a C function as cheap as a call into C can be. */
static int c_add(lua_State *L)
{
	lua_pushnumber(L, luaL_checknumber(L, 1) + luaL_checknumber(L, 2));
	return 1;
}

/* A new VM with the standard libraries and READY_FD, that runs the script
 * through lua_pcall (C -> Lua). */
static int run_script(const char *path)
{
	lua_State *L = luaL_newstate();
	if (!L) {
		fprintf(stderr, "%s: cannot create a lua_State\n", path);
		return 1;
	}
	luaL_openlibs(L);
	lua_pushinteger(L, ready_fd[1]);
	lua_setglobal(L, "READY_FD");
	lua_register(L, "c_add", c_add);
	if (luaL_loadfile(L, path) != 0 || lua_pcall(L, 0, 0, 0) != 0) {
		fprintf(stderr, "%s: %s\n", path, lua_tostring(L, -1));
		return 1;
	}
	lua_close(L);
	return 0;
}

static void *worker_thread(void *script)
{
	run_script(script);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t workers[MAX_WORKERS];
	int n, i;
	char byte;

	n = argc == 4 ? atoi(argv[3]) : 0;
	if (n < 1 || n > MAX_WORKERS) {
		fprintf(stderr, "usage: %s WORKER.lua CRASH.lua NWORKERS (1-%d)\n", argv[0],
			MAX_WORKERS);
		return 2;
	}
	if (pipe(ready_fd) != 0) {
		perror("pipe");
		return 1;
	}
	for (i = 0; i < n; i++)
		if (pthread_create(&workers[i], NULL, worker_thread, argv[1]) != 0) {
			fprintf(stderr, "pthread_create failed\n");
			return 1;
		}
	/* Each worker writes one byte once its loop runs. */
	for (i = 0; i < n; i++)
		if (read(ready_fd[0], &byte, 1) != 1) {
			fprintf(stderr, "a worker never got ready\n");
			return 1;
		}
	/* Crash once they are well into their loops. */
	usleep(20000);
	return run_script(argv[2]);
}
