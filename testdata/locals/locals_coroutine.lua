-- Locals of frames inside a coroutine resumed from the main thread, and of the
-- resumer's frames; the coroutine crashes.
local ffi = require("ffi")
jit.off()  -- stay in the interpreter
ffi.cdef("void abort(void);")

-- The oracle: testdata/lib/locals_oracle.lua.
local oracle = require("locals_oracle")

local function consume(item, label)
  local bytes = string.char(0, 1, 2, 200, 255) .. label
  if item == 3 then oracle.write(1, 1); ffi.C.abort() end
  return #bytes
end

local co = coroutine.create(function(first, ...)
  local item, seen = first, {...}
  while true do
    local got = consume(item, "item " .. item)
    item = coroutine.yield(got)
  end
end)

local results = {}
for i = 1, 5 do
  local ok, got = coroutine.resume(co, i, "extra", i * 2)
  results[i] = got
end
