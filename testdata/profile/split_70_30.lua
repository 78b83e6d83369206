-- Equal-cost work split 70/30 between two functions, for SPLIT_SECONDS (default forever):
-- share_a runs 7 of every 10 calls. Interpreted, so both cost the same per call.
jit.off()
local function work(n) local s = 0 for i = 1, n do s = s + i % 3 end return s end
local function share_a() return work(2000) end
local function share_b() return work(2000) end
local stop = os.clock() + tonumber(os.getenv("SPLIT_SECONDS") or "1e9")
while os.clock() < stop do
  for i = 1, 10 do if i <= 7 then share_a() else share_b() end end
end
