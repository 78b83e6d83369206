-- catch --redact: a string made at run time (so that no constant or source
-- line holds it) is a local of the crashing frame and of its caller.
local ffi = require("ffi")
ffi.cdef("void abort(void);")
jit.off()
local function crash(secret, n)
  ffi.C.abort()
  return secret, n
end
local parts = { "red", "acted", "secret" }
local secret = table.concat(parts, "_") .. "_" .. tostring(#parts * 14)
crash(secret, #secret)
