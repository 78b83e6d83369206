-- Benchmark subject: a worker whose GC heap holds about MB megabytes (env,
-- default 450) of live strings and tables when it dies in an FFI call.
local ffi = require("ffi")
ffi.cdef("void abort(void);")
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
crash(fill())
