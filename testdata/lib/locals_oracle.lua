-- The oracle of the testdata/locals/ scenarios: what debug.getlocal and debug.getupvalue
-- see at each level of the running coroutine, written to $ORACLE just before the crash.
-- tools/make-cores.sh copies this file next to each scenario, where require finds it.
-- Format, one line each:
--   level N WHAT                       N as the core numbers it, WHAT as debug.getinfo's
--   local NAME TYPE [VALUE]            debug.getlocal(level, n), (*temporary) left out
--   vararg NAME TYPE [VALUE]           debug.getlocal(level, -n)
--   upvalue NAME TYPE [VALUE]          debug.getupvalue(func, n)
-- VALUE: nil, booleans, numbers and 64-bit integer cdata as tostring prints them, strings
-- as their bytes in hex; other types have none.
local ffi = require("ffi")

local M = {}

function M.show(v)
  local t = type(v)
  if t == "string" then
    return t .. " " .. (v:gsub(".", function(c) return string.format("%02x", c:byte()) end))
  end
  if t == "nil" or t == "boolean" or t == "number" then return t .. " " .. tostring(v) end
  if ffi.istype("int64_t", v) or ffi.istype("uint64_t", v) then return t .. " " .. tostring(v) end
  return t
end

-- level as the caller of variables counts it: one more here.
local function variables(out, level, info)
  level = level + 1
  for n = 1, 1000 do
    local name, v = debug.getlocal(level, n)
    if not name then break end
    if name ~= "(*temporary)" then out[#out + 1] = "local " .. name .. " " .. M.show(v) end
  end
  for n = 1, 1000 do
    local name, v = debug.getlocal(level, -n)
    if not name then break end
    out[#out + 1] = "vararg " .. name .. " " .. M.show(v)
  end
  for n = 1, 1000 do
    local name, v = debug.getupvalue(info.func, n)
    if not name then break end
    out[#out + 1] = "upvalue " .. name .. " " .. M.show(v)
  end
end

-- Levels first..last of the caller's stack (as debug.getinfo counts them in the function
-- calling write: 1 is that function; last nil: down to the bottom), numbered from number
-- on, then the extra lines.
function M.write(first, number, last, extra)
  local out = {}
  local level = first + 1 -- this function is one more level
  while debug.getinfo(level, "f") and (not last or level <= last + 1) do
    local info = debug.getinfo(level, "fS")
    out[#out + 1] = "level " .. (number + level - first - 1) .. " " .. info.what
    if info.what ~= "C" then variables(out, level, info) end
    level = level + 1
  end
  for _, line in ipairs(extra or {}) do out[#out + 1] = line end
  local o = assert(io.open(os.getenv("ORACLE") or "/dev/stderr", "w"))
  o:write(table.concat(out, "\n"), "\n")
  o:close()
end

return M
