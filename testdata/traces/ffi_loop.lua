-- FFI in a trace: cdata array loads and stores, a struct field, 64-bit
-- integer arithmetic and a call of a C function.
local ffi = require("ffi")
ffi.cdef[[
typedef struct { int32_t n; double w; } item_t;
int abs(int);
void abort(void);
]]
require("jit.dump").on("+rsT", os.getenv("ORACLE"))
local items = ffi.new("item_t[?]", 64)
local buf = ffi.new("uint8_t[?]", 256)
local big = 0LL
for i = 0, 999 do
  local it = items[i % 64]
  it.n = it.n + ffi.C.abs(i - 500)
  it.w = it.w * 0.5 + i
  buf[i % 256] = i
  big = big + 0x100000000LL
end
require("jit.dump").off()
-- jit.dump and the names it loaded (jit.vmdef) are garbage now: collected,
-- they stay out of the heap census and out of this core's fixture.
package.loaded["jit.dump"], package.loaded["jit.vmdef"] = nil, nil
collectgarbage()
jit.off()
ffi.C.abort()
