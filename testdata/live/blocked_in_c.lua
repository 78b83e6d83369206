-- Live target: blocked in a C call (poll with no fds and no timeout) made from Lua.
local ffi = require("ffi")
jit.off()
ffi.cdef("int poll(void *fds, unsigned long nfds, int timeout);")
local function wait_forever() local r = ffi.C.poll(nil, 0, -1); return r end
local function serve() wait_forever() end
serve()
