-- Runs in the worker thread's VM: records its traceback, says it is ready, then blocks in
-- an FFI read() on a pipe nobody writes, with Lua frames below it.
local ffi = require("ffi")
jit.off()  -- stay in the interpreter
ffi.cdef("long read(int fd, void *buf, unsigned long n); long write(int fd, const void *buf, unsigned long n);")
local function save(tb) local o = assert(io.open(os.getenv("ORACLE_PARKED") or "/dev/stderr", "w")); o:write(tb); o:close() end

local function wait_for_input(buf)
  save(debug.traceback("", 1)); ffi.C.write(READY_FD, "r", 1); local n = ffi.C.read(PARK_FD, buf, 1)
  return n  -- not a tail call: this frame stays on the stack
end

local function serve()
  local buf = ffi.new("char[1]")
  return wait_for_input(buf) + 0
end

serve()
