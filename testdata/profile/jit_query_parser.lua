-- A query-string parser, compiled: gmatch (the trace stitches around it), lower/upper and
-- concatenation, table.sort, table.concat. Loops for SPLIT_SECONDS (default forever).
-- Each hot line is a statement whose work ends on that line (see tests/profile/lines.py).
local function parse(qs)
  local t, n = {}, 0
  for k, v in qs:gmatch("([^&=]+)=([^&]*)") do n = n + 1 t[n] = k:lower() .. "=" .. v:upper() end
  for _ = 1, 2 do table.sort(t) end
  local s for _ = 1, 8 do s = table.concat(t, "&") end return s
end
local qs = {}
for i = 1, 40 do qs[#qs + 1] = ("key%02d=value%d"):format((i * 7) % 40, i) end
qs = table.concat(qs, "&")
local stop = os.clock() + tonumber(os.getenv("SPLIT_SECONDS") or "1e9")
local n = 0
while os.clock() < stop do
  for _ = 1, 100 do n = n + #parse(qs) end
end
print(n)
