-- Spins forever in a compiled loop: run's loop calls step, which calls add; the trace
-- inlines both. Every line of the loop body is one statement, so a sample anywhere in the
-- trace names the same lines as ljcore bt --pid does.
local function add(acc, i) return acc + i % 7 end
local function step(acc, i) return add(acc, i) end
local function run() local acc = 0 while true do for i = 1, 1e6 do acc = step(acc, i) end end end
run()
