-- Compiled loops with side traces: a third of the passes take a branch whose code hangs
-- off the loop's trace as a side trace, calling a function the trace inlines. Loops for
-- SPLIT_SECONDS (default forever). Each hot line is a loop that ends on that line (see
-- tests/profile/lines.py).
local function mix(x) return (x * 1103515245 + 12345) % 2147483648 end
local function run(n)
  local a, b, c = 0, 0, 0
  for i = 1, n do if i % 3 == 0 then b = mix(b + i) % 1000003 else a = (a * 31 + i) % 1000003 end end
  for i = 1, n / 2 do if i % 5 < 2 then c = c + math.sqrt(i) else c = (c * 7 + i) % 65521 end end
  return a + b + c
end
local stop = os.clock() + tonumber(os.getenv("SPLIT_SECONDS") or "1e9")
local s = 0
while os.clock() < stop do s = s + run(1e5) end
print(s)
