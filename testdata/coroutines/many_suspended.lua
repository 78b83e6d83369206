-- Many suspended coroutines with distinct stacks, then a crash in a resume
-- chain three deep: main -> outer -> middle (wrap) -> inner, crash in inner.
-- The oracle holds, per coroutine, tostring(co) and debug.traceback(co).
local ffi = require("ffi")
ffi.cdef("void abort(void);")
jit.off()
local out = assert(io.open(os.getenv("ORACLE"), "w"))
local function record(co, tb) out:write(tostring(co), "\n", tb, "\n\n") end

local function park(depth)
  if depth == 0 then coroutine.yield("parked") end
  park(depth - 1)
  return depth
end
local sleepers = {}
for i = 1, 5 do
  local co = coroutine.create(function(n) park(n) end)
  coroutine.resume(co, i)
  sleepers[i] = co
end

local function inner()
  for _, co in ipairs(sleepers) do record(co, debug.traceback(co)) end
  local me = coroutine.running()
  record(me, debug.traceback("", 1):sub(2)); out:close(); ffi.C.abort()
end
local middle = coroutine.wrap(function()
  local co = coroutine.create(inner)
  coroutine.resume(co)
end)
local outer = coroutine.create(function() middle() end)
coroutine.resume(outer)
