-- Retained-size oracle for JIT traces (lj_gc.c gc_traverse_trace): a compiled loop whose
-- trace holds, among its IR constants, a string and the closure it specialised on,
-- which nothing else holds. What the traces retain is what LuaJIT frees when
-- they go: collectgarbage("count") with them and after jit.flush(), each after full
-- cycles; built again the same way, the same bytes; built a third time, then aborts.
-- Oracle lines, tab-separated:
--   largest <type> <bytes>   of the objects of that type, the one retaining the most
--                            retains bytes (the prototype's first root trace holds the
--                            others in its chains)
--   skip <reason>            a build without a JIT: nothing to check
--   done                     the last line: the scenario finished
local ffi = require("ffi")
ffi.cdef("void abort(void);")
local abort = ffi.C.abort
local traceinfo = require("jit.util").traceinfo
jit.off()
jit.flush()

-- Thousands of strings that stay, as in retained.lua: the string table must not shrink.
local pad = {}
for i = 1, 4000 do pad[i] = "pad" .. i end

-- sum's loop reads key, an immutable upvalue: the trace keeps the string as an IR
-- constant, and sum, whose upvalue it reads, too (lj_record.c rec_upvalue_constify).
-- Once the chunk has run, nothing else holds either. A chunk loaded anew each time: its
-- prototypes are new, so sum's closure is the first of its prototype, which a trace
-- may specialise on (a prototype with several closures is never: PROTO_CLC_POLY).
-- keep_chunk keeps the chunk, and so its prototypes, whose traces these are.
keep_chunk = false
local chunk = [[
local key = ...
local function sum()
  local n = 0
  for _ = 1, 300 do n = n + #key end
  return n
end
jit.on()
sum()
jit.off()
]]
local function compile_here()
  keep_chunk = assert(load(chunk, "=traced"))
  keep_chunk(string.rep("t", 4000) .. "x")
end

local function settle()
  local last = -1
  for _ = 1, 20 do
    collectgarbage()
    local now = collectgarbage("count")
    if now == last then return now end
    last = now
  end
  error("GC never settled")
end

-- In a coroutine of its own, dead once it returns: the slots its frames used are in no
-- stack a root reaches (the main thread's would keep them until overwritten).
local function compile()
  keep_chunk = false
  settle()
  coroutine.wrap(compile_here)()
end

-- What the traces retain: compiled, then flushed.
local function measure()
  compile()
  local with = settle()
  assert(traceinfo(1), "sum's loop was not compiled")
  jit.flush()
  return (with - settle()) * 1024
end

local function main()
  local o = assert(io.open(assert(os.getenv("ORACLE")), "w"))
  if pcall(jit.on) then
    jit.off()
    local bytes = measure()
    local again = measure()
    if again ~= bytes then
      error("traces: " .. bytes .. " bytes, then " .. again .. " compiled again")
    end
    compile()
    settle()
    o:write("largest\ttrace\t", string.format("%d", bytes), "\n")
  else
    o:write("skip\tthis build has no JIT: no traces\n")
  end
  o:write("done\n")
  o:close()
end

main()
abort()
