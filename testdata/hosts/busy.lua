-- Runs in each worker thread's VM of busy_vms.c until the process dies: a tight loop of what
-- the interpreter hands to C helpers (an __index function, concatenation, string comparison,
-- table allocation, a C function), each called after the interpreter stores BASE to L->base
-- and reuses the register (vm_x64.dasc: BASE is rdx, also the third C argument).
local ffi = require("ffi")
jit.off()  -- stay in the interpreter
ffi.cdef("long write(int fd, const void *buf, unsigned long n);")

local names = setmetatable({}, {__index = function(_, k) return "n" .. k end})

local function step(i)
  local key = names[i % 7]
  local t = {key, i}
  if key < "n3" then t[3] = c_add(i, 1) end
  return #t + select("#", tostring(i), type(key))
end

local function run(rounds)
  local sum = 0
  for i = 1, rounds do sum = sum + step(i) end
  return sum
end

run(1000)
ffi.C.write(READY_FD, "r", 1)
while true do run(1000) end
