-- Spins forever 300 Lua frames deep (recursion, no tail calls), interpreted.
jit.off()
local function spin() local s = 0 while true do s = s + 1 end end
local function down(n) if n == 0 then spin() else down(n - 1) end return n end
down(298)
