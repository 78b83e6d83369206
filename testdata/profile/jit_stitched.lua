-- Compiled loops that call C functions the JIT does not compile (string.gsub, os.time):
-- the trace stops at each call, the function runs in the interpreter, and a stitched trace
-- continues after it. Loops for SPLIT_SECONDS (default forever). Each hot line is a loop
-- that ends on that line (see tests/profile/lines.py).
local function run(n)
  local total, s = 0, "the quick brown fox jumps over the lazy dog"
  for i = 1, n do total = total + #s:gsub("[aeiou]", "") + os.time() % 2 end
  for i = 1, n do total = (total + #(s .. i):gsub("o", "0")) % 1000003 end
  for i = 1, 60 * n do total = (total * 7 + i) % 1000003 end
  return total
end
local stop = os.clock() + tonumber(os.getenv("SPLIT_SECONDS") or "1e9")
local t = 0
while os.clock() < stop do t = t + run(1000) end
print(t)
