-- Crash 50 levels deep in a recursion, so debug.traceback elides the middle with "...".
local ffi = require("ffi")
jit.off()  -- stay in the interpreter
ffi.cdef("void abort(void);")
local function save(tb) local o = assert(io.open(os.getenv("ORACLE") or "/dev/stderr", "w")); o:write(tb); o:close() end

local function descend(depth)
  if depth == 0 then save(debug.traceback("", 1)); ffi.C.abort() end
  local r = descend(depth - 1)
  return r
end

local function go()
  local r = descend(50)
  return r
end

go()
