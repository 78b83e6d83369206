-- Locals and upvalues of a function loaded from bytecode stripped of its debug info
-- (string.dump(f, true)): LuaJIT has no names for its slots, only (*temporary) and
-- (*vararg), and names its upvalues ""; the stripped function crashes.
local ffi = require("ffi")
jit.off()  -- stay in the interpreter
ffi.cdef("void abort(void);")

-- The oracle, as in locals_nested.lua.
local function show(v)
  local t = type(v)
  if t == "string" then
    return t .. " " .. (v:gsub(".", function(c) return string.format("%02x", c:byte()) end))
  end
  if t == "nil" or t == "boolean" or t == "number" then return t .. " " .. tostring(v) end
  if ffi.istype("int64_t", v) or ffi.istype("uint64_t", v) then return t .. " " .. tostring(v) end
  return t
end
local function dump()
  local out = {}
  local level = 2
  while debug.getinfo(level, "f") do
    local info = debug.getinfo(level, "fS")
    out[#out + 1] = "level " .. (level - 1) .. " " .. info.what
    if info.what ~= "C" then
      for n = 1, 1000 do
        local name, v = debug.getlocal(level, n)
        if not name then break end
        if name ~= "(*temporary)" then out[#out + 1] = "local " .. name .. " " .. show(v) end
      end
      for n = 1, 1000 do
        local name, v = debug.getlocal(level, -n)
        if not name then break end
        out[#out + 1] = "vararg " .. name .. " " .. show(v)
      end
      for n = 1, 1000 do
        local name, v = debug.getupvalue(info.func, n)
        if not name then break end
        out[#out + 1] = "upvalue " .. name .. " " .. show(v)
      end
    end
    level = level + 1
  end
  local o = assert(io.open(os.getenv("ORACLE") or "/dev/stderr", "w"))
  o:write(table.concat(out, "\n"), "\n")
  o:close()
end

-- Globals: the stripped chunk reaches them without upvalues of its own.
crash = function() dump(); ffi.C.abort() end

local source = [[
local up = ...
return function(a, ...)
  local b = a * 2
  local s = "stripped"
  if a == 21 then crash() end
  return b + up + #s
end
]]
local stripped = loadstring(string.dump(assert(loadstring(source)), true))
local inner = stripped(5)
print(inner(21, "x", 3.5))
