-- alloc_overhead.sh's work: binary trees of depth 12, TREES of them (every
-- node a table, freed by the GC). Waits for START, then prints its seconds
-- and the tree nodes it made.
local timed = dofile((arg[0]:match("^(.*/)") or "") .. "timed_work.lua")
local function tree(depth)
  if depth == 0 then return { false, false } end
  return { tree(depth - 1), tree(depth - 1) }
end
local function check(t)
  if not t[1] then return 1 end
  return 1 + check(t[1]) + check(t[2])
end
timed.wait_for_start()
local t0, nodes = timed.now(), 0
for _ = 1, tonumber(os.getenv("TREES")) do nodes = nodes + check(tree(12)) end
io.write(string.format("%.4f %d\n", timed.now() - t0, nodes))
