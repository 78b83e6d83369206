-- offcpu_overhead.sh's work: ROUNDS round trips of a byte between this process and a
-- forked child over two pipes, so that this process leaves the CPU (blocked in read())
-- once a round, tens of thousands of times a second, and SPIN steps of a loop on the CPU
-- between them (0 when unset: as many round trips as it can). Waits for START, then
-- prints its seconds and its rounds.
local timed = dofile((arg[0]:match("^(.*/)") or "") .. "timed_work.lua")
local ffi = require("ffi")
ffi.cdef [[
int pipe(int fds[2]);
int fork(void);
long read(int fd, void *buf, unsigned long n);
long write(int fd, const void *buf, unsigned long n);
int _exit(int status);
int close(int fd);
]]
local C = ffi.C
local to_child, to_parent = ffi.new("int[2]"), ffi.new("int[2]")
assert(C.pipe(to_child) == 0 and C.pipe(to_parent) == 0)
local byte = ffi.new("char[1]")
if C.fork() == 0 then
  -- The echo, until the parent's end is closed (it exits).
  C.close(to_child[1])
  while C.read(to_child[0], byte, 1) == 1 do C.write(to_parent[1], byte, 1) end
  C._exit(0)
end
local spin = tonumber(os.getenv("SPIN")) or 0
local sum = 0
local function ping()
  for i = 1, spin do sum = sum + i end
  C.write(to_child[1], byte, 1)
  C.read(to_parent[0], byte, 1)
end
timed.wait_for_start()
local rounds = tonumber(os.getenv("ROUNDS"))
local t0 = timed.now()
for _ = 1, rounds do ping() end
io.write(string.format("%.4f %d\n", timed.now() - t0, rounds))
