-- Crash inside a string.gsub replacement function, gsub called as a string method.
local ffi = require("ffi")
jit.off()  -- stay in the interpreter
ffi.cdef("void abort(void);")
local function save(tb) local o = assert(io.open(os.getenv("ORACLE") or "/dev/stderr", "w")); o:write(tb); o:close() end

local function on_word(w)
  if w == "crash" then save(debug.traceback("", 1)); ffi.C.abort() end
  return w:upper()
end

local function shout(s)
  return (s:gsub("%a+", on_word))
end

print(shout("please do not crash here"))
