-- Crash under chunks and functions whose names are bytes, not text: a "=" name with a
-- byte that is not UTF-8, "@" and "=" names with tabs, newlines and control bytes, a
-- source whose first line is binary, a field named by a key holding ESC, DEL and bytes
-- >= 128, and a heap string of such bytes. debug.traceback prints them raw; ljcore's JSON
-- must keep them exactly and its text must not feed them to a terminal.
local ffi = require("ffi")
jit.off()  -- stay in the interpreter
ffi.cdef("void abort(void);")
local function save(tb) local o = assert(io.open(os.getenv("ORACLE") or "/dev/stderr", "w")); o:write(tb); o:close() end
SAVE, FFI = save, ffi  -- globals for the loaded chunks

-- Among the GC census's largest strings.
BINARY = string.rep("\0\27[2J\255\1", 400)

local T = {}
local crash = assert(load('SAVE(debug.traceback("", 1)); FFI.C.abort()', "=chunk\255name"))
T["esc\27[31m\127\200\201"] = function() crash() end
local by_key = assert(load("local T = ...; T['esc\\27[31m\\127\\200\\201']()",
                           "@dir\tname\nline\1\31\127.lua"))
local binary_source = assert(load("--\200\1\127 binary\nlocal f, T = ...; f(T)"))
local tabbed = assert(load("local f, g, T = ...; f(g, T)", "=tab\there\nnew line\r"))
tabbed(binary_source, by_key, T)
