-- abort() called straight from the main chunk: the shortest possible Lua stack.
local ffi = require("ffi")
jit.off()  -- stay in the interpreter
ffi.cdef("void abort(void);")
local function save(tb) local o = assert(io.open(os.getenv("ORACLE") or "/dev/stderr", "w")); o:write(tb); o:close() end

save(debug.traceback("", 1)); ffi.C.abort()
