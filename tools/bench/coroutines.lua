-- Benchmark subject for `ljcore bt --all`: COROUTINES (env, default 100 000)
-- suspended coroutines, each three Lua calls deep in coroutine.yield, held
-- by a global, when the process dies in an FFI call.
local ffi = require("ffi")
ffi.cdef("void abort(void);")
local n = tonumber(os.getenv("COROUTINES")) or 100000
local function leaf(i) coroutine.yield(i) end
local function middle(i) leaf(i) end
local function body(i) middle(i) end
coroutines = {}
for i = 1, n do
  local co = coroutine.create(body)
  coroutine.resume(co, i)
  coroutines[i] = co
end
io.stderr:write(("made %d suspended coroutines\n"):format(n))
ffi.C.abort()
