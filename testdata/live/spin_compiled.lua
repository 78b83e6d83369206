-- Live target: spins forever inside a compiled trace (JIT on).
local function hot()
  local x = 0
  while true do x = (x + 1) % 1000003 end
end
hot()
