-- Crash inside pcall inside xpcall (with a handler); xpcall itself is called unnamed.
local ffi = require("ffi")
jit.off()  -- stay in the interpreter
ffi.cdef("void abort(void);")
local function save(tb) local o = assert(io.open(os.getenv("ORACLE") or "/dev/stderr", "w")); o:write(tb); o:close() end

local function handler(err)
  return "handled: " .. tostring(err)
end

local function inner(n)
  save(debug.traceback("", 1)); ffi.C.abort()
end

local function protected()
  local ok, err = pcall(inner, 1)
  return ok, err
end

-- Taking xpcall from a table slot leaves it without a name: shown as [builtin#N].
local fns = { xpcall }
fns[1](protected, handler)
