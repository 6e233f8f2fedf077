-- bench/random_hosts.lua: B4 — GET /pins/{host} for a random one of the N seeded hosts.
-- Hosts are named h<i>.bench.example for i in 0..N-1 (run.sh seeds them that way).
-- usage: BENCH_HOSTS=N wrk -s random_hosts.lua URL   (N defaults to 100000; also `-- N` after the URL)
-- BENCH_HOSTS=1 always asks for h0.bench.example: B4's one-host baseline, with the same Lua cost per request.
local count = tonumber(os.getenv("BENCH_HOSTS") or "100000")

function init(args)
  if args[1] ~= nil then count = tonumber(args[1]) end
  math.randomseed(os.time() + math.floor(os.clock() * 1e6))
end

function request()
  return wrk.format("GET", "/pins/h" .. math.random(0, count - 1) .. ".bench.example")
end
