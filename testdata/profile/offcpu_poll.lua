-- Time off the CPU in known shares, forever: per round, wait_long blocks 30 ms and
-- wait_short 10 ms in poll(NULL, 0, ms) (3:1), then read_pipe asks a forked child for a
-- byte and blocks in read() until it comes, 5 ms later. Interpreted: compiled, the three calls
-- would be inlined into one loop whose body has no snapshot between them, so any profile
-- puts them all on the loop's line (the nearest snapshot before).
jit.off()
local ffi = require("ffi")
ffi.cdef [[
int poll(void *fds, unsigned long nfds, int timeout);
int pipe(int fds[2]);
int fork(void);
long read(int fd, void *buf, unsigned long n);
long write(int fd, const void *buf, unsigned long n);
int close(int fd);
]]
local C = ffi.C
local ask, answer = ffi.new("int[2]"), ffi.new("int[2]")
assert(C.pipe(ask) == 0 and C.pipe(answer) == 0)
local byte = ffi.new("char[1]")
if C.fork() == 0 then
  -- The answer, 5 ms after each question, until the parent is gone.
  C.close(ask[1])
  while C.read(ask[0], byte, 1) == 1 do
    C.poll(nil, 0, 5)
    C.write(answer[1], byte, 1)
  end
  os.exit(0)
end
local function wait_long() C.poll(nil, 0, 30) end
local function wait_short() C.poll(nil, 0, 10) end
local function read_pipe()
  C.write(ask[1], byte, 1)
  C.read(answer[0], byte, 1)
end
while true do
  wait_long()
  wait_short()
  read_pipe()
end
