-- Crash inside a line hook set with debug.sethook: the hook runs on top of the hooked
-- function, called from C (lib_debug's hook dispatcher) inside the interpreter.
local ffi = require("ffi")
jit.off()  -- stay in the interpreter
ffi.cdef("void abort(void);")
local function save(tb) local o = assert(io.open(os.getenv("ORACLE") or "/dev/stderr", "w")); o:write(tb); o:close() end

local function hook(event, line)
  if line == 17 then save(debug.traceback("", 1)); ffi.C.abort() end
end

local function work(n)
  local sum = 0
  for i = 1, n do
    sum = sum + i
  end
  return sum * 2
end

debug.sethook(hook, "l")
work(3)
