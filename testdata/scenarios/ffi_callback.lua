-- Crash inside an FFI callback: C's qsort calls a Lua comparator through a callback made by
-- ffi.cast (C -> Lua through lj_vm_ffi_callback, a VM entry of its own).
local ffi = require("ffi")
jit.off()  -- stay in the interpreter
ffi.cdef[[
void abort(void);
void qsort(void *base, size_t n, size_t size, int (*compar)(const void *, const void *));
]]
local function save(tb) local o = assert(io.open(os.getenv("ORACLE") or "/dev/stderr", "w")); o:write(tb); o:close() end

local calls = 0
local function compare(a, b)
  calls = calls + 1
  if calls == 3 then save(debug.traceback("", 1)); ffi.C.abort() end
  local x, y = ffi.cast("const int *", a)[0], ffi.cast("const int *", b)[0]
  return x < y and -1 or (x > y and 1 or 0)
end

local function sort_ints(t)
  local arr = ffi.new("int[?]", #t, t)
  local cb = ffi.cast("int (*)(const void *, const void *)", compare)
  ffi.C.qsort(arr, #t, ffi.sizeof("int"), cb)
  cb:free()
end

sort_ints({5, 3, 8, 1, 9})
