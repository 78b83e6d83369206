-- Crash inside a __gc finalizer that an ordinary GC step runs while a loop allocates
-- (no collectgarbage() call: the finalizer sits right on top of the allocating frame).
local ffi = require("ffi")
jit.off()  -- stay in the interpreter
ffi.cdef("void abort(void);")
local function save(tb) local o = assert(io.open(os.getenv("ORACLE") or "/dev/stderr", "w")); o:write(tb); o:close() end

local function leave_garbage()
  local p = newproxy(true)
  getmetatable(p).__gc = function(self)
    save(debug.traceback("", 1)); ffi.C.abort()
  end
end

local function churn()
  leave_garbage()
  for i = 1, 1e8 do local t = { i } end
end

churn()
