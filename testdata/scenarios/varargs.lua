-- Crash in a chain of vararg functions (vararg frames sit between the Lua frames).
local ffi = require("ffi")
jit.off()  -- stay in the interpreter
ffi.cdef("void abort(void);")
local function save(tb) local o = assert(io.open(os.getenv("ORACLE") or "/dev/stderr", "w")); o:write(tb); o:close() end

local function count(...)
  local n = select('#', ...)
  if n == 4 then save(debug.traceback("", 1)); ffi.C.abort() end
  return n
end

local function fixed(a, b, ...)
  local r = count(a, b, ...)
  return r
end

local function pass(...)
  local r = fixed(...)
  return r
end

print(pass(1, nil, 3, nil))
