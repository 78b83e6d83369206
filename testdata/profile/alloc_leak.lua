-- The scenario of ljcore profile --alloc (tests/profile/alloc_compare.py): leak() keeps
-- a table per call in a table that only grows; churn() builds strings that die at once.
-- Each round runs churn 10 times, then leak 10 times, in loops of their own (so a
-- trace holds the allocations of one of them). After a warm-up that compiles them, it
-- writes to the file ALLOC_ORACLE the bytes LuaJIT itself counts (collectgarbage
-- "count", with the GC stopped) for 200 rounds of each, then runs until killed, at
-- most 2000 rounds a second (as a server answers requests as they come: the heap
-- stays small enough for the collector to finish its cycles under the probe).
local ffi = require("ffi")
ffi.cdef("int poll(void *fds, unsigned long nfds, int timeout);")
local leaked = {}
local function leak(i)
  leaked[#leaked + 1] = { i, i + 1, i + 2, i + 3 }
end
local function churn(i)
  local parts = {}
  for j = 1, 4 do
    parts[j] = string.rep("x", 40) .. i .. ":" .. j
  end
  return #parts[4]
end

local i, n = 0, 0
local function churn_round()
  for _ = 1, 10 do
    i = i + 1
    n = n + churn(i)
  end
end
local function leak_round()
  for _ = 1, 10 do
    leak(i)
  end
end

for _ = 1, 3000 do
  churn_round()
  leak_round()
end
collectgarbage("collect")
collectgarbage("stop")
local c0 = collectgarbage("count")
for _ = 1, 200 do churn_round() end
local c1 = collectgarbage("count")
for _ = 1, 200 do leak_round() end
local c2 = collectgarbage("count")
collectgarbage("restart")
local f = assert(io.open(assert(os.getenv("ALLOC_ORACLE")), "w"))
f:write(string.format("churn %d\nleak %d\n", (c1 - c0) * 1024, (c2 - c1) * 1024))
f:close()

while true do
  for _ = 1, 20 do
    churn_round()
    leak_round()
  end
  ffi.C.poll(nil, 0, 10)
end
