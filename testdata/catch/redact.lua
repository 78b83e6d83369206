-- catch --redact: a secret made at run time (no constant, source line or
-- string it is made from holds it) in a local of the crashing frame and of
-- its caller, in a table, in a string made from it that nothing shows, and
-- in LuaJIT's string buffer (g->tmpbuf: string.format and concatenation
-- go through it).
local ffi = require("ffi")
ffi.cdef("void abort(void);")
jit.off()
local function crash(secret, n, request)
  ffi.C.abort()
  return secret, n, request
end
local secret = ("24_detca_der_terces"):upper():reverse()
local request = { token = secret, headers = { authorization = "Bearer " .. secret } }
-- Garbage at once: only the heap and the string buffer hold its bytes.
local n = #string.format("user=%s;", secret)
crash(secret, n, request)
