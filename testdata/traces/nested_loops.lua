-- Nested loops: the inner loop becomes a root trace, the outer one a trace
-- that runs the inner one's loop through a link.
require("jit.dump").on("+rsT", os.getenv("ORACLE"))
local grid = {}
for y = 1, 40 do
  local row = {}
  for x = 1, 40 do row[x] = x * y end
  grid[y] = row
end
local total = 0
for y = 1, #grid do
  local row = grid[y]
  for x = 1, #row do total = total + row[x] end
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
