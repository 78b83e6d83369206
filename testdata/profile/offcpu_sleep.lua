-- Time off the CPU that the script measures itself, for tests/profile/offcpu.py's total
-- check. It waits for a line on standard input (blocked in read() since before the
-- profile started: that wait is not the profile's), then sleeps: 20 times 20 ms in
-- poll(NULL, 0, 20), 1 000 times 200 us in usleep() (shorter than the profiler's 1 ms
-- period: sampled, not all walked), then for a minute, still asleep when the profile
-- ends. Before that last sleep it writes "T0 CPU0 T1 CPU1" to standard output:
-- CLOCK_MONOTONIC's seconds and the process's CPU seconds when the line came and when
-- the last sleep began, so that the time off the CPU from T0 to any later moment E is
-- (E - T0) - (CPU1 - CPU0).
local ffi = require("ffi")
ffi.cdef [[
int poll(void *fds, unsigned long nfds, int timeout);
int usleep(unsigned usec);
struct lj_timespec { long sec, nsec; };
int clock_gettime(int clock, struct lj_timespec *ts);
]]
local C = ffi.C
local ts = ffi.new("struct lj_timespec")
local function clock(id)
  C.clock_gettime(id, ts)
  return tonumber(ts.sec) + tonumber(ts.nsec) * 1e-9
end
local function now() return clock(1) end -- CLOCK_MONOTONIC
local function cpu() return clock(2) end -- CLOCK_PROCESS_CPUTIME_ID

local function sleep_long() C.poll(nil, 0, 20) end
local function sleep_short() C.usleep(200) end

io.read("*l")
local t0, cpu0 = now(), cpu()
for _ = 1, 20 do sleep_long() end
for _ = 1, 1000 do sleep_short() end
io.write(string.format("%.6f %.6f %.6f %.6f\n", t0, cpu0, now(), cpu()))
io.flush()
C.poll(nil, 0, 60000)
