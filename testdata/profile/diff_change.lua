-- Three functions of equal cost, interpreted; with CHANGED=1, grow's work is three
-- times as much: ljcore profile --diff of the two runs' profiles must list grow first.
-- Loops for SPLIT_SECONDS (default forever).
jit.off()
local function work(n) local s = 0 for i = 1, n do s = s + i % 3 end return s end
local grow_by = os.getenv("CHANGED") == "1" and 3 or 1
local function steady_a() return work(2000) end
local function grow() return work(2000 * grow_by) end
local function steady_b() return work(2000) end
local stop = os.clock() + tonumber(os.getenv("SPLIT_SECONDS") or "1e9")
while os.clock() < stop do steady_a() grow() steady_b() end
