-- Spins forever in the interpreter three Lua calls deep, each function one line long, so
-- that every sample has the same frames and lines as ljcore bt --pid prints.
jit.off()
local function leaf(n) local s = 0 for i = 1, n do s = s + i end return s end
local function middle(n) return leaf(n) + 1 end
local function outer() while true do middle(1000) end end
outer()
