-- Locals of frames that run in a compiled trace when it crashes: the trace of a hot loop,
-- with two functions inlined, stores through a NULL pointer. Its frames and their values
-- exist only in the trace's snapshot, registers and spill slots. Pass 1 runs the same loop
-- interpreted and, at the store of the crashing iteration, writes what debug.getlocal and
-- debug.getupvalue see in the three frames (the oracle); pass 2 makes the loop hot; pass 3
-- crashes in the trace. Without
-- a JIT, pass 3 crashes interpreted, in the same frames with the same values.
local ffi = require("ffi")

-- The oracle: testdata/lib/locals_oracle.lua. Levels 2..4 of the hook are poke, step and
-- run: levels 0..2 of a crash in the trace, 1..3 of one interpreted, below the FFI's
-- __newindex.
local oracle = require("locals_oracle")
local compiled = pcall(jit.on)

local scale = 3

local function poke(p, v)
  local doubled = v * 2
  local ratio = v / scale
  if v ~= 0 then p[0] = doubled + ratio end
end

local function step(p, v, label)
  local shifted = v + 0.5
  poke(p, v)
  return shifted, label
end

local function run(ptrs, label)
  local sum = 0
  for i = 1, #ptrs do
    sum = sum + i
    step(ptrs[i], i, label)
  end
  return sum
end

jit.off()
local cell = ffi.new("double[1]")
local good, bad = {}, {}
for i = 1, 200 do good[i] = ffi.cast("double *", cell); bad[i] = good[i] end
bad[200] = ffi.cast("double *", 0)
local store_line = debug.getinfo(poke, "S").linedefined + 3

for pass = 1, 3 do
  if pass == 1 then
    debug.sethook(function(_, line)
      if line == store_line and debug.getinfo(2, "f").func == poke
          and select(2, debug.getlocal(2, 2)) == 200 then
        debug.sethook()
        oracle.write(2, compiled and 0 or 1, 4)
        error("oracle written")
      end
    end, "l")
    pcall(run, bad, "label")
  elseif pass == 2 then
    pcall(jit.on)
    run(good, "label")
  else
    run(bad, "label")
  end
end
