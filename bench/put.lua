-- Sequential admin PUTs with fresh random pins each time (bench B6).
local alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
local last = "AEIMQUYcgkosw048"
local function pin()
  local t = {}
  for i = 1, 42 do local k = math.random(1, 64); t[i] = alphabet:sub(k, k) end
  local k = math.random(1, 16); t[43] = last:sub(k, k)
  return table.concat(t) .. "="
end
local token = os.getenv("BENCH_TOKEN")
local host = os.getenv("BENCH_PUT_HOST") or "b6.bench.example"
math.randomseed(os.time())
request = function()
  local body = '{"pins":[{"sha256":"' .. pin() .. '"},{"sha256":"' .. pin() .. '","role":"backup"}]}'
  return wrk.format("PUT", "/admin/hosts/" .. host,
    {["Authorization"] = "Bearer " .. token, ["Content-Type"] = "application/json"}, body)
end
response = function(status, headers, body)
  if status ~= 200 and status ~= 201 then io.stderr:write("PUT answered " .. status .. "\n"); os.exit(1) end
end
