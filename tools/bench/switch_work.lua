-- offcpu_overhead.sh's work: ROUNDS round trips of a byte between this process and a
-- forked child over two pipes, so that this process leaves the CPU (blocked in read())
-- once a round, tens of thousands of times a second, and SPIN steps of a loop on the CPU
-- between them (0 when unset: as many round trips as it can). Waits for START, then
-- prints its seconds, its rounds and the CPU seconds both processes took: on a loaded
-- machine the wall clock also counts the time other processes had the CPU.
local timed = dofile((arg[0]:match("^(.*/)") or "") .. "timed_work.lua")
local ffi = require("ffi")
ffi.cdef [[
int pipe(int fds[2]);
int fork(void);
long read(int fd, void *buf, unsigned long n);
long write(int fd, const void *buf, unsigned long n);
int _exit(int status);
int close(int fd);
int clock_getcpuclockid(int pid, int *clock);
]]
local C = ffi.C
local to_child, to_parent = ffi.new("int[2]"), ffi.new("int[2]")
assert(C.pipe(to_child) == 0 and C.pipe(to_parent) == 0)
local byte = ffi.new("char[1]")
local child = C.fork()
if child == 0 then
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
-- The CPU seconds of this process and the echo.
local clocks = ffi.new("int[2]")
assert(C.clock_getcpuclockid(0, clocks) == 0 and C.clock_getcpuclockid(child, clocks + 1) == 0)
local function cpu()
  return timed.now(clocks[0]) + timed.now(clocks[1])
end
timed.wait_for_start()
local rounds = tonumber(os.getenv("ROUNDS"))
local t0, cpu0 = timed.now(), cpu()
for _ = 1, rounds do ping() end
io.write(string.format("%.4f %d %.4f\n", timed.now() - t0, rounds, cpu() - cpu0))
