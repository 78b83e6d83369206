-- Locals, varargs and upvalues of frames below a pcall, an __index metamethod, a
-- string.gsub callback and vararg functions, with slots reused across scopes and both
-- kinds of for loop live; the innermost frame crashes.
local ffi = require("ffi")
jit.off()  -- stay in the interpreter
ffi.cdef("void abort(void);")

-- The oracle: testdata/lib/locals_oracle.lua, numbered as in the core (where
-- ffi.C.abort's frame is level 0).
local oracle = require("locals_oracle")
-- Values `ljcore print` finds by path: globals, nested tables, keys that are not names,
-- the registry. Oracle lines "path<TAB>EXPR<TAB>TYPE VALUE", after the levels.
app = {cache = {hits = 42, ratio = 0.25, name = "lru\0\255"}, [7] = true, ["a key"] = "spaced"}
app.cache[2.5] = "half"
app[true] = "yes"
local paths = {
  {"_G.app.cache.hits", app.cache.hits}, {"app.cache.name", app.cache.name},
  {"app.cache.ratio", app.cache.ratio}, {"app[7]", app[7]}, {'app["a key"]', app["a key"]},
  {"app.cache[2.5]", app.cache[2.5]}, {"app[true]", app[true]}, {"app.missing", app.missing},
  {"app.cache", app.cache}, {'package.loaded["string"].rep', string.rep},
  {"registry._LOADED.ffi", debug.getregistry()._LOADED.ffi},
}
local path_lines = {}
for _, p in ipairs(paths) do
  path_lines[#path_lines + 1] = "path\t" .. p[1] .. "\t" .. oracle.show(p[2])
end

local binary = "a\0b\1\2\"\\\n\r\t\255\127z" .. string.rep("x", 300)
local counter = 0

local function innermost(tag, ...)
  local n = select("#", ...)
  local big = {}
  for i = 1, 5000 do big[i] = i * 0.5 end
  big.self = big
  local cyclic = setmetatable({name = "loop"}, {__mode = "k"})
  cyclic.next = {back = cyclic}
  local specials = {1 / 0, -1 / 0, 0 / 0, -0.0, 2 ^ 53, 0.1, 1e300, -123456789012345}
  local inf, ninf, nan, negzero, huge = 1 / 0, -1 / 0, 0 / 0, -0.0, 2 ^ 53
  local i64, u64, box = -123LL, 18446744073709551615ULL, ffi.new("int32_t[1]")
  counter = counter + n
  oracle.write(1, 1, nil, path_lines); ffi.C.abort()
  return big, cyclic, specials, inf, ninf, nan, negzero, huge, i64, u64, box
end

local function on_word(w)
  do
    local shadow = w .. "!"
    local first = shadow:sub(1, 1)
  end
  local reused = #w   -- takes the slot `shadow` had
  if w == "crash" then
    local r = innermost(w, binary, nil, true, 1.5, reused)  -- no tail call: keep this frame
    return r
  end
  return w:upper()
end

local proxy = setmetatable({}, {
  __index = function(t, key)
    local result
    for i = 1, 3 do
      for k, v in pairs({[key] = i}) do
        result = (("please crash now"):gsub("%a+", on_word))
      end
    end
    return result
  end,
})

local function guarded(a, b, ...)
  local total = a + b
  local ok, r = pcall(function(...) return proxy[...] end, ...)
  return ok, r, total
end

print(guarded(1, 2, "missing", false))
