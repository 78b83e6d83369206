-- profile_overhead.sh's work: about 4 s of interpreted arithmetic. Waits
-- for START, then prints its wall and CPU seconds.
local timed = dofile((arg[0]:match("^(.*/)") or "") .. "timed_work.lua")
timed.wait_for_start()
jit.off()
local function work(n) local s = 0 for i = 1, n do s = s + i % 3 end return s end
local t0, c0 = timed.now(), os.clock()
for _ = 1, 16000 do work(20000) end
io.write(string.format("%.4f %.4f\n", timed.now() - t0, os.clock() - c0))
