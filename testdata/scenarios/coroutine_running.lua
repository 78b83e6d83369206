-- Crash inside a coroutine resumed from the main thread (the traceback shows only its frames).
local ffi = require("ffi")
jit.off()  -- stay in the interpreter
ffi.cdef("void abort(void);")
local function save(tb) local o = assert(io.open(os.getenv("ORACLE") or "/dev/stderr", "w")); o:write(tb); o:close() end

local function consume(item)
  if item == 3 then save(debug.traceback("", 1)); ffi.C.abort() end
end

local co = coroutine.create(function(first)
  local item = first
  while true do
    consume(item)
    item = coroutine.yield(item)
  end
end)

for i = 1, 5 do
  assert(coroutine.resume(co, i))
end
