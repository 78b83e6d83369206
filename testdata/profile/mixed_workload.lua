-- A small request loop with varied stacks, for profile output formats:
-- parsing, sorting with a Lua comparator, string building, pcall, a
-- coroutine producer, recursion, and garbage for the GC. Runs forever.
local function parse_line(line)
  local fields = {}
  for k, v in line:gmatch("(%w+)=(%w+)") do fields[k] = v end
  return fields
end

local function by_score(a, b) return a.score > b.score end

local function rank(items)
  table.sort(items, by_score)
  return items
end

local function render(items)
  local parts = {}
  for i = 1, #items do
    parts[#parts + 1] = string.format("%d:%s", items[i].score, items[i].name)
  end
  return table.concat(parts, ",")
end

local function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end

local producer = coroutine.wrap(function()
  local i = 0
  while true do
    i = i + 1
    coroutine.yield("name=user" .. i .. " score=" .. (i * 7919) % 1000)
  end
end)

local function handle()
  local items = {}
  for _ = 1, 200 do
    local f = parse_line(producer())
    items[#items + 1] = { name = f.name, score = tonumber(f.score) }
  end
  local ok, out = pcall(render, rank(items))
  assert(ok)
  return #out + fib(18)
end

local total = 0
while true do total = total + handle() end
