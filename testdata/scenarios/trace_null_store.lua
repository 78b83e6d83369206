-- SIGSEGV inside compiled code: the trace of a hot loop, with two Lua functions inlined
-- into it, stores through a NULL pointer. Nothing can print a traceback at that point,
-- so pass 1 runs the same loop interpreted, from the same call site, with a line hook
-- that records debug.traceback at the store; pass 2 makes the loop hot, and LuaJIT
-- reports the trace it compiled for it (jit.attach); pass 3 enters that trace and
-- crashes. ORACLE.trace names the trace and the frames it runs, innermost first.
-- Without a JIT all passes interpret, and ORACLE.trace says so. ORACLE.level is where the
-- traceback starts: 0 in compiled code, 1 below the C function that faults when interpreted.
local ffi = require("ffi")
local has_jit, jutil = pcall(require, "jit.util")
local function save(path, text) local o = assert(io.open(path, "w")); o:write(text); o:close() end
local oracle = os.getenv("ORACLE") or "/dev/stderr"

local function poke(p, v)
  if v ~= 0 then p[0] = v end
end

local function step(p, v)
  poke(p, v)
end

local function run(ptrs)
  for i = 1, #ptrs do
    step(ptrs[i], i)
  end
end

jit.off()
local cell = ffi.new("int[1]")
local good, bad = {}, {}
for i = 1, 200 do good[i] = ffi.cast("int *", cell); bad[i] = good[i] end
bad[200] = ffi.cast("int *", 0)
local store_line = debug.getinfo(poke, "S").linedefined + 1

local run_trace
for pass = 1, 3 do
  if pass == 1 then
    debug.sethook(function(_, line)
      if line == store_line and debug.getinfo(2, "f").func == poke then
        save(oracle, debug.traceback("", 2)); debug.sethook()
      end
    end, "l")
  elseif pass == 2 then
    has_jit = has_jit and pcall(jit.on)
    if has_jit then
      jit.flush()
      local started
      jit.attach(function(what, tr, func)
        if what == "start" and func == run then started = tr end
        if what == "stop" and tr == started then run_trace = tr end
      end, "trace")
    end
  else
    -- The trace of run's loop runs run itself, with step and poke inlined.
    local info = run_trace and jutil.traceinfo(run_trace)
    save(oracle .. ".trace", info and ("trace " .. run_trace .. " poke step run\n") or "no trace\n")
    save(oracle .. ".level", info and "0\n" or "1\n")
  end
  run(pass == 3 and bad or good)
end
