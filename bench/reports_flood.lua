-- bench/reports_flood.lua: junk pin failure reports (issue 40, row B5r) from many client addresses, named in
-- X-Forwarded-For (the server under test trusts 127.0.0.1 as its proxy), for random unpinned names, each about
-- 2 KB. Each connection waits FLOOD_DELAY_MS (default 4) between reports: with 8 connections about 2,000 a second,
-- a flood that the per-address limits and the byte budget must absorb without slowing GET /pins.
local delay_ms = tonumber(os.getenv("FLOOD_DELAY_MS") or "4")
local chain = '"-----BEGIN CERTIFICATE-----\\n' .. string.rep("QUJDREVGR0g", 160) .. '\\n-----END CERTIFICATE-----"'
local counter = 0

function delay()
    return delay_ms
end

function request()
    counter = counter + 1
    local address = string.format("10.%d.%d.%d", math.random(0, 255), math.random(0, 255), math.random(1, 254))
    local name = string.format("junk-%d-%d.example.net", math.random(1, 1000000), counter)
    local body = string.format(
        '{"date-time":"2026-11-28T05:00:00Z","hostname":"%s","port":443,"noted-hostname":"%s",' ..
        '"include-subdomains":false,"enforce-pinning":true,"validated-certificate-chain":[%s],' ..
        '"known-pins":["pin-sha256=\\"AAAA\\""],"validation-result":1}', name, name, chain)
    return wrk.format("POST", "/reports", {
        ["Content-Type"] = "application/json",
        ["X-Forwarded-For"] = address,
    }, body)
end
