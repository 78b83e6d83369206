-- Retained-size oracle: builds structures, measures what each keeps alive the way LuaJIT
-- itself would free it (collectgarbage("count") with it and after dropping its one
-- reference, each after full cycles), builds it again the same way, then aborts.
-- Oracle lines, tab-separated:
--   retained <name> <address> <bytes>   the rebuilt object at address retains bytes; for
--                                       cdata and userdata, tostring's address is that
--                                       of the payload, right after the object's header
--   done                                the last line: the scenario finished
-- Everything runs inside main(): once it returns, its stack slots are above the main
-- thread's top, so only keep.<name> references each structure when the process dies.
local ffi = require("ffi")
ffi.cdef [[
typedef struct { double x, y, z; } point3;
void abort(void);
]]
local abort = ffi.C.abort
jit.off()
jit.flush()

-- Lives for the whole run: keys of the weak-keyed tables, values of the weak-valued one.
local wkeys, wvals = {}, {}
for i = 1, 10 do
  wkeys[i], wvals[i] = { i }, { -i }
end
-- Thousands of strings that stay: dropping a structure's strings must not shrink the
-- string table (lj_gc.c gc_shrink), which would count as memory the structure held.
local pad = {}
for i = 1, 4000 do pad[i] = "pad" .. i end

local build = {
  -- A table of tables, each with its own string.
  tables = function()
    local t = {}
    for i = 1, 100 do t[i] = { i, i * 2, name = "row" .. i } end
    return t
  end,
  -- A closure over a buffer: the function, its upvalue and the table.
  closure = function()
    local buf = {}
    for i = 1, 500 do buf[i] = i end
    return function() return buf end
  end,
  -- Strings only this table holds.
  strings = function()
    local t = {}
    for i = 1, 20 do t[i] = string.rep("s", 100 + i) .. i end
    return t
  end,
  cdata_fixed = function() return ffi.new("point3", 1, 2, 3) end,
  cdata_var = function() return ffi.new("char[?]", 1000) end,
  -- A userdata with a metatable of its own.
  userdata = function() return newproxy(true) end,
  -- Two owners of one shared table: neither retains it.
  owner_a = function(shared) return { shared = shared, own = { 1, 2, 3, 4 } } end,
  owner_b = function(shared) return { shared = shared, own = { 5, 6, 7, 8 } } end,
  -- A cycle of two tables.
  cycle = function()
    local a, b = {}, {}
    a.next, b.next = b, a
    return a
  end,
  -- Weak keys: the values stay (LuaJIT has no ephemerons), the keys live elsewhere.
  weak_k = function()
    local w = setmetatable({}, { __mode = "k" })
    for i = 1, 10 do w[wkeys[i]] = { i, i } end
    return w
  end,
  -- Weak values held elsewhere: not retained; the string keys are.
  weak_v = function()
    local w = setmetatable({}, { __mode = "v" })
    for i = 1, 10 do w["wv" .. i] = wvals[i] end
    return w
  end,
  -- Weak keys and values: strings are never weak, so the table keeps its string values.
  weak_kv = function()
    local w = setmetatable({}, { __mode = "kv" })
    for i = 1, 10 do w[wkeys[i]] = "weakstring" .. i end
    return w
  end,
}
local order = { "tables", "closure", "strings", "cdata_fixed", "cdata_var", "userdata",
  "owner_a", "owner_b", "cycle", "weak_k", "weak_v", "weak_kv" }

-- Every field exists before measuring: setting one later must not grow keep's hash part.
keep = { shared = false }
for _, name in ipairs(order) do keep[name] = false end
local results = {}
for i = 1, #order do results[i] = 0 end

-- Full cycles until g->gc.total stops moving (each cycle may still shrink the string
-- buffer or a stack a little).
local function settle()
  local last = -1
  for _ = 1, 20 do
    collectgarbage()
    local now = collectgarbage("count")
    if now == last then return now end
    last = now
  end
  error("GC never settled")
end

local function make(name)
  return build[name](keep.shared)
end

-- What the structure name retains: built, then dropped.
local function measure(name)
  keep[name] = make(name)
  local with = settle()
  keep[name] = false
  return (with - settle()) * 1024
end

local function main()
  keep.shared = { "shared", 1, 2, 3 }
  for i, name in ipairs(order) do
    results[i] = measure(name)
    -- Built the same way, the same bytes: else the oracle would not hold for the
    -- structure left in the core.
    local again = measure(name)
    if again ~= results[i] then
      error(name .. ": " .. results[i] .. " bytes, then " .. again .. " built again")
    end
    keep[name] = make(name)
  end
  settle()
  local o = assert(io.open(assert(os.getenv("ORACLE")), "w"))
  for i, name in ipairs(order) do
    local addr = tostring(keep[name]):match("0x%x+")
    o:write("retained\t", name, "\t", addr, "\t", string.format("%d", results[i]), "\n")
  end
  o:write("done\n")
  o:close()
end

main()
abort()
