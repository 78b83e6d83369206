-- Benchmark subject: a worker whose GC heap holds about MB megabytes (env,
-- default 450) of live strings and tables when it dies in an FFI call; or,
-- with HANG=lua or HANG=c, one that then runs on for ever, spinning in Lua
-- or blocked in poll(), for the live benchmarks.
local ffi = require("ffi")
ffi.cdef("void abort(void); int poll(void *fds, unsigned long n, int timeout);")
jit.off()
local target = (tonumber(os.getenv("MB")) or 450) * 1024 * 1024
local keep, chunk = {}, string.rep("x", 4000)
local function fill()
  local i = 0
  while collectgarbage("count") * 1024 < target do
    i = i + 1
    -- Distinct strings (no interning) plus a small table each.
    keep[i] = { chunk .. i, i }
  end
  return i
end
local function crash(n)
  io.stderr:write(("filled %d objects, %.0f MB\n"):format(n, collectgarbage("count") / 1024))
  ffi.C.abort()
end
local function spin()
  local x = 0
  while true do for i = 1, 1000 do x = x + i end end
end
local n = fill()
local hang = os.getenv("HANG")
if hang then
  io.stderr:write(("filled %d objects, %.0f MB, hanging in %s\n"):format(
    n, collectgarbage("count") / 1024, hang))
  if hang == "c" then ffi.C.poll(nil, 0, -1) else spin() end
end
crash(n)
