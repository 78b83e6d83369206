-- Live target: spins forever in interpreted code, two Lua levels deep.
jit.off()
local function inner(n) local x = 0; for i = 1, n do x = x + i end; return x end
local function outer() while true do inner(1000) end end
outer()
