-- Three VM entries nested through C: main chunk -> table.sort -> comparator
-- -> string.gsub -> replacement function, which crashes (C -> Lua -> C -> Lua -> C -> Lua).
local ffi = require("ffi")
jit.off()  -- stay in the interpreter
ffi.cdef("void abort(void);")
local function save(tb) local o = assert(io.open(os.getenv("ORACLE") or "/dev/stderr", "w")); o:write(tb); o:close() end

local function on_match(w)
  save(debug.traceback("", 1)); ffi.C.abort()
end

local function compare(a, b)
  local s = ("word"):gsub("%a+", on_match)
  return a < #s
end

local function sort_them(t)
  table.sort(t, compare)
end

sort_them({3, 1, 2})
