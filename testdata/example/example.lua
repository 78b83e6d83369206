-- README example: a small order-processing app that dies in FFI code: order 3
-- has no buffer, nil becomes a NULL int32_t * and the store faults (SIGSEGV).
local ffi = require("ffi")
jit.off()  -- stay in the interpreter
-- Only for tests: with ORACLE set, keep LuaJIT's own traceback of the crashing frame.
local function save(tb)
  local path = os.getenv("ORACLE")
  if path then local o = assert(io.open(path, "w")); o:write(tb); o:close() end
end

local Order = {}
Order.__index = Order

function Order.new(id, note, with_buffer)
  local buffer = with_buffer and ffi.new("int32_t[1]") or nil
  return setmetatable({ id = id, note = note, buffer = buffer }, Order)
end

-- Bug: an order without a buffer still gets its note length stored.
function Order:store_length()
  local out = ffi.cast("int32_t *", self.buffer)
  save(debug.traceback("", 1)); out[0] = #self.note
end

local function summarize(orders)
  for _, order in ipairs(orders) do
    order:store_length()
  end
  return #orders
end

local handlers = {
  report = function(orders)
    local ok, n = pcall(summarize, orders)
    print(ok and ("orders: " .. n) or ("failed: " .. tostring(n)))
  end,
}

local function dispatch(cmd, ...)
  local handler = assert(handlers[cmd], "unknown command")
  handler(...)
end

dispatch("report", {
  Order.new(1, "leave at the door", true),
  Order.new(2, "gift wrap", true),
  Order.new(3, "fragile", false),
})
