-- Crash (abort) under calls through a local, an upvalue, a global, a table field and a method.
local ffi = require("ffi")
jit.off()  -- stay in the interpreter
ffi.cdef("void abort(void);")
-- save() runs after debug.traceback has returned, so it is never on the stack at the crash.
local function save(tb) local o = assert(io.open(os.getenv("ORACLE") or "/dev/stderr", "w")); o:write(tb); o:close() end

local obj = {}
function obj:method(x)
  save(debug.traceback("", 1)); ffi.C.abort()
end

local M = {}
function M.field(x)
  obj:method(x + 1)
end

function global_fn(x)
  M.field(x + 1)
end

local function via_upvalue(x)
  global_fn(x + 1)
end

local function outer(x)
  via_upvalue(x + 1)
end

local function main()
  local loc = outer
  loc(1)
end

main()
