-- One root trace: a numeric for loop over a table, with arithmetic and a
-- string constant. jit.dump (+rs: registers, snapshots; T: plain text)
-- writes LuaJIT's own listing of every trace to the oracle, then the
-- process dies in the interpreter.
require("jit.dump").on("+rsT", os.getenv("ORACLE"))
local t = {}
for i = 1, 300 do t[i] = i * 3 + 1 end
local sum, names = 0, 0
for i = 1, #t do
  sum = sum + t[i] % 7
  if t[i] == "x" then names = names + 1 end
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
