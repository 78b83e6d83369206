-- What the overhead benchmarks' work scripts share (dofile'd from beside
-- them): a monotonic clock, and a gate that holds the work until the file
-- named by START exists, that is until the profiler is in place.
local ffi = require("ffi")
ffi.cdef [[
struct timespec { long tv_sec, tv_nsec; };
int clock_gettime(int clock, struct timespec *ts);
int usleep(unsigned usec);
]]

local timed = {}

-- Seconds of CLOCK_MONOTONIC, or of the clock given.
function timed.now(clock)
  local ts = ffi.new("struct timespec")
  ffi.C.clock_gettime(clock or 1, ts) -- CLOCK_MONOTONIC
  return tonumber(ts.tv_sec) + tonumber(ts.tv_nsec) * 1e-9
end

function timed.wait_for_start()
  while not io.open(os.getenv("START")) do ffi.C.usleep(10000) end
end

return timed
