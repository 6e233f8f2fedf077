-- bench/all_hosts.lua: B7c — every seeded host once with a plain GET (200), then once with If-None-Match: *
-- (304), so the server has built both prepared responses for every host; then it wraps around.
-- usage: BENCH_HOSTS=N wrk -t1 -s all_hosts.lua URL   (one thread: the counter is per thread)
local n = tonumber(os.getenv("BENCH_HOSTS") or "100000")
local i = 0

function request()
  local h = i % n
  local conditional = math.floor(i / n) % 2 == 1
  i = i + 1
  if conditional then
    return wrk.format("GET", "/pins/h" .. h .. ".bench.example", {["If-None-Match"] = "*"})
  end
  return wrk.format("GET", "/pins/h" .. h .. ".bench.example")
end
