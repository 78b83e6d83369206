-- Crash in a coroutine.wrap generator that is itself driven from inside another coroutine.
local ffi = require("ffi")
jit.off()  -- stay in the interpreter
ffi.cdef("void abort(void);")
local function save(tb) local o = assert(io.open(os.getenv("ORACLE") or "/dev/stderr", "w")); o:write(tb); o:close() end

local function emit(i)
  if i == 2 then save(debug.traceback("", 1)); ffi.C.abort() end
  coroutine.yield(i)
end

local function produce(n)
  for i = 1, n do emit(i) end
end

local function driver()
  local gen = coroutine.wrap(produce)
  local a = gen(3)
  local b = gen()
end

local outer = coroutine.create(driver)
print(coroutine.resume(outer))
