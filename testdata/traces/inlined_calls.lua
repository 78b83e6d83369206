-- Calls inlined into a trace: a Lua function with an upvalue, a method
-- through a metatable, and built-ins (string.byte, math.floor) the
-- recorder turns into IR. Snapshots then hold more than one frame.
require("jit.dump").on("+rsT", os.getenv("ORACLE"))
local scale = 3
local function mul(x) return x * scale end
local Point = {}
Point.__index = Point
function Point:len2() return self.x * self.x + self.y * self.y end
local p = setmetatable({ x = 2, y = 5 }, Point)
local s = "abcdefghijklmnopqrstuvwxyz and then some more text"
local acc = 0
for i = 1, 500 do
  acc = acc + mul(i) + p:len2() + s:byte(i % #s + 1) + math.floor(i / 7)
end
require("jit.dump").off()
-- jit.dump and the names it loaded (jit.vmdef) are garbage now: collected,
-- they stay out of the heap census and out of this core's fixture.
package.loaded["jit.dump"], package.loaded["jit.vmdef"] = nil, nil
collectgarbage()
jit.off()
local ffi = require("ffi")
ffi.cdef("void abort(void);")
ffi.C.abort()
