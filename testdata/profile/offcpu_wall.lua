-- Wall-clock time split between the CPU and waiting, measured by the script itself: per
-- round, burn spins about 8 ms of CPU and rest blocks 12 ms in poll(NULL, 0, ms). Every
-- round it adds a line to the file WALL_SIDE, "NOW CPU": CLOCK_MONOTONIC's seconds and the
-- process's CPU seconds (os.clock()), so that over any two lines the CPU's share of the
-- time is their CPU's difference over their NOW's.
local ffi = require("ffi")
ffi.cdef [[
int poll(void *fds, unsigned long nfds, int timeout);
struct lj_timespec { long sec, nsec; };
int clock_gettime(int clock, struct lj_timespec *ts);
]]
local C = ffi.C
local ts = ffi.new("struct lj_timespec")
local function now() C.clock_gettime(1, ts) return tonumber(ts.sec) + tonumber(ts.nsec) * 1e-9 end
local side = assert(os.getenv("WALL_SIDE"), "WALL_SIDE: where to write the split")
local function burn()
  local stop, s = os.clock() + 0.008, 0
  while os.clock() < stop do for i = 1, 1000 do s = s + i % 7 end end
  return s
end
local function rest() C.poll(nil, 0, 12) end
local f = assert(io.open(side, "w"))
while true do
  burn()
  rest()
  f:write(string.format("%.6f %.6f\n", now(), os.clock()))
  f:flush()
end
