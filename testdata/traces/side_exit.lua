-- A root trace whose guard fails often enough to grow side traces, one of
-- which links back to the root.
require("jit.dump").on("+rsT", os.getenv("ORACLE"))
local odd, even, big = 0, 0, 0
for i = 1, 1000 do
  if i % 2 == 0 then
    even = even + i
  else
    odd = odd + 1
  end
  if i > 600 then big = big + 0.5 end
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
