-- Crash inside a table.sort comparator (Lua called back from the C function 'sort').
local ffi = require("ffi")
jit.off()  -- stay in the interpreter
ffi.cdef("void abort(void);")
local function save(tb) local o = assert(io.open(os.getenv("ORACLE") or "/dev/stderr", "w")); o:write(tb); o:close() end

local calls = 0
local function sort_numbers(t)
  table.sort(t, function(a, b)
    calls = calls + 1
    if calls == 5 then save(debug.traceback("", 1)); ffi.C.abort() end
    return a < b
  end)
end

sort_numbers({5, 3, 8, 1, 9, 2, 7})
