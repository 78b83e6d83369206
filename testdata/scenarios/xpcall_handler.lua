-- Crash inside an xpcall message handler: LuaJIT runs the handler on top of the frames
-- that raised the error, before unwinding them (lj_err_run via lj_vm_call).
local ffi = require("ffi")
jit.off()  -- stay in the interpreter
ffi.cdef("void abort(void);")
local function save(tb) local o = assert(io.open(os.getenv("ORACLE") or "/dev/stderr", "w")); o:write(tb); o:close() end

local function handler(err)
  save(debug.traceback("", 1)); ffi.C.abort()
end

local function fails(n)
  error("failed " .. n)
end

local function run()
  return xpcall(fails, handler, 42)
end

run()
