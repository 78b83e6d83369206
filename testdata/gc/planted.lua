-- GC heap oracle: plants objects of known count and size under known paths, writes them
-- and LuaJIT's own g->gc.total (collectgarbage("count") * 1024) to ORACLE, then aborts.
-- Oracle lines, tab-separated:
--   count <type> <n>              ljcore must count at least n objects of that type
--   top <type> <bytes> <path>     an object of at least that size, reachable by that path
--   total <bytes>                 g->gc.total when the process died, to the byte
-- Run as leak_<N>.lua (a symlink to this file) it also leaks N sessions under
-- _G.app.sessions: two cores at two levels of N are the input of the --diff test.
local ffi = require("ffi")
ffi.cdef [[
int open(const char *path, int flags, int mode);
int write(int fd, const void *buf, unsigned long n);
void abort(void);
]]
local leak = tonumber((arg and arg[0] or ""):match("leak_(%d+)%.lua$")) or 0

-- 100 000 small tables under a global path.
app = { cache = { items = {} } }
local items = app.cache.items
for i = 1, 100000 do items[i] = { i } end
-- A big string, held by package.loaded.
package.loaded["app.blob"] = string.rep("x", 1048576)
-- A cache that leaks through the upvalue of a global function.
local cache = {}
function get(k)
  local v = cache[k]
  if not v then v = { k }; cache[k] = v end
  return v
end
for i = 1, 50000 do get("key" .. i) end
-- The leak whose growth --diff must find.
app.sessions = {}
for i = 1, leak do app.sessions[i] = { id = i, data = string.rep("s", 100) .. i } end

local o = assert(io.open(assert(os.getenv("ORACLE")), "w"))
o:write("count\ttable\t", 100000 + 50000 + 4 + leak, "\n")
o:write("count\tstring\t", 50000 + 1 + leak, "\n")
o:write("count\tLua function\t1\n")
o:write("top\ttable\t", 100000 * 8, "\t_G.app.cache.items\n")
o:write("top\tstring\t", 1048576, "\tpackage.loaded[\"app.blob\"]\n")
o:write("top\ttable\t", 50000 * 24, "\t_G.get<upvalue 'cache'>\n")
o:close()

-- The last line must not change what it reports: from here on nothing may allocate
-- (no strings, no cdata, no traces, no GC step), so the digits are written by hand
-- into a buffer made beforehand, through calls resolved beforehand.
local fd = ffi.C.open(os.getenv("ORACLE"), 1025, 0) -- O_WRONLY|O_APPEND
local buf = ffi.new("char[32]")
local write, abort = ffi.C.write, ffi.C.abort
write(fd, buf, 0)
jit.off()
collectgarbage("stop")
local total = collectgarbage("count") * 1024
local digits, p = 1, 10
while p <= total do digits, p = digits + 1, p * 10 end
local n = total
for i = digits - 1, 0, -1 do
  local d = n % 10
  buf[i] = 48 + d
  n = (n - d) / 10
end
buf[digits] = 10
write(fd, "total\t", 6)
write(fd, buf, digits + 1)
abort()
