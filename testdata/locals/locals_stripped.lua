-- Locals and upvalues of a function loaded from bytecode stripped of its debug info
-- (string.dump(f, true)): LuaJIT has no names for its slots, only (*temporary) and
-- (*vararg), and names its upvalues ""; the stripped function crashes.
local ffi = require("ffi")
jit.off()  -- stay in the interpreter
ffi.cdef("void abort(void);")

-- The oracle: testdata/lib/locals_oracle.lua.
local oracle = require("locals_oracle")

-- Globals: the stripped chunk reaches them without upvalues of its own.
crash = function() oracle.write(1, 1); ffi.C.abort() end

local source = [[
local up = ...
return function(a, ...)
  local b = a * 2
  local s = "stripped"
  if a == 21 then crash() end
  return b + up + #s
end
]]
local stripped = loadstring(string.dump(assert(loadstring(source)), true))
local inner = stripped(5)
print(inner(21, "x", 3.5))
