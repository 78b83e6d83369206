-- README example: a small order-processing app that dies in an FFI call (strlen(NULL)).
local ffi = require("ffi")
jit.off()  -- stay in the interpreter
ffi.cdef("size_t strlen(const char *s);")
-- Only for tests: with ORACLE set, keep LuaJIT's own traceback of the crashing frame.
local function save(tb)
  local path = os.getenv("ORACLE")
  if path then local o = assert(io.open(path, "w")); o:write(tb); o:close() end
end

local Order = {}
Order.__index = Order

function Order.new(id, note)
  return setmetatable({ id = id, note = note }, Order)
end

-- Bug: order 3 has no note, nil becomes a NULL const char * and strlen() faults.
function Order:note_length()
  save(debug.traceback("", 1)); return tonumber(ffi.C.strlen(self.note))
end

local function summarize(orders)
  local total = 0
  for _, order in ipairs(orders) do
    total = total + order:note_length()
  end
  return total
end

local handlers = {
  report = function(orders)
    local ok, total = pcall(summarize, orders)
    print(ok and ("note bytes: " .. total) or ("failed: " .. tostring(total)))
  end,
}

local function dispatch(cmd, ...)
  local handler = assert(handlers[cmd], "unknown command")
  handler(...)
end

dispatch("report", {
  Order.new(1, "leave at the door"),
  Order.new(2, "gift wrap"),
  Order.new(3, nil),
})
