-- Benchmark subject for the VM scan: a process with SPARSE_MB megabytes (env, default 1024)
-- of writable memory it touched only a page per megabyte of (the kernel leaves the rest of
-- such memory out of the core: holes in a sparse file), beside a GC heap of DENSE_MB
-- megabytes (default 64) of live strings, when it dies in an FFI call.
local ffi = require("ffi")
ffi.cdef("void *malloc(size_t n); void abort(void);")
local sparse = (tonumber(os.getenv("SPARSE_MB")) or 1024) * 1024 * 1024
local dense = (tonumber(os.getenv("DENSE_MB")) or 64) * 1024 * 1024
local block = ffi.cast("char *", ffi.C.malloc(sparse))
for at = 0, sparse - 1, 1024 * 1024 do block[at] = 1 end
local keep, chunk, i = {}, string.rep("x", 4000), 0
while collectgarbage("count") * 1024 < dense do
  i = i + 1
  keep[i] = chunk .. i
end
io.stderr:write(("sparse %d MB, %d strings, %.0f MB GC heap\n"):format(
  sparse / 1048576, i, collectgarbage("count") / 1024))
ffi.C.abort()
