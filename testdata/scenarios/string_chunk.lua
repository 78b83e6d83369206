-- Crash in code from load()/loadstring(): chunk names with and without "=", "@" and truncation.
local ffi = require("ffi")
jit.off()  -- stay in the interpreter
ffi.cdef("void abort(void);")
local function save(tb) local o = assert(io.open(os.getenv("ORACLE") or "/dev/stderr", "w")); o:write(tb); o:close() end
SAVE, FFI = save, ffi  -- globals for the loaded chunks

-- "@" + a name longer than LUA_IDSIZE: shown as "..." + its tail.
local c5 = assert(load('\nSAVE(debug.traceback("", 1)); FFI.C.abort()', "@" .. string.rep("long/", 14) .. "inner.lua"))
-- "=" name: shown verbatim; called via (...) so it has no name: "in main chunk".
local c4 = assert(load("local x = 1;\n(...)()", "=named chunk"))
-- No name, one long line: [string "first 45 chars..."].
local c3 = assert(loadstring("local nxt = ... nxt() -- this single line is far too long to be shown in full"))
-- No name, several lines: [string "first line..."].
local c2 = assert(load("-- two lines\nlocal nxt = ...; nxt()"))
-- No name, short single line: [string "whole source"].
local c1 = assert(loadstring("local nxt = ...; nxt()"))

c1(function()
  c2(function() c3(function() c4(c5) end) end)
end)
