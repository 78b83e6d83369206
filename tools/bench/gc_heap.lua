-- Benchmark subject for `ljcore gc`: a heap of OBJECTS (env, default 6 000 000) small
-- objects, half empty tables and half distinct strings, held by two globals, when the
-- process dies in an FFI call. Prints the object count LuaJIT's GC list holds.
local ffi = require("ffi")
ffi.cdef("void abort(void);")
local n = math.floor((tonumber(os.getenv("OBJECTS")) or 6000000) / 2)
tables, strings = {}, {}
for i = 1, n do tables[i] = {} end
for i = 1, n do strings[i] = "k" .. i end
io.stderr:write(("made %d tables and %d strings, %.0f MB\n"):format(
  n, n, collectgarbage("count") / 1024))
ffi.C.abort()
