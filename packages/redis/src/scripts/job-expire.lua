--[[ job-expire.lua: Driver.jobExpire. Sweeps jobs past their expires_at.
KEYS: none (spans every queue in P:queues).
ARGV: P, now, nowIso, limit.
Returns: HGETALL of each expired job.
Transition: scheduled|available|retryable -> discarded when @expiresAt < now (discarded_at = expired_at =
  nowIso, @finishedAt = now). ]]
--!include lib/generated.lua
--!include lib/keys.lua
--!include lib/indexes.lua
--!include lib/expire.lua

local now, nowIso, limit = tonumber(ARGS[2]), ARGS[3], tonumber(ARGS[4])
local out = {}
for _, q in ipairs(redis.call('SMEMBERS', QUEUES)) do
  if #out >= limit then break end
  local ids = redis.call('ZRANGEBYSCORE', qkey(q, 'exp'), '-inf', '(' .. ARGS[2], 'LIMIT', 0, limit - #out)
  for _, id in ipairs(ids) do
    local jk = jkey(q, id)
    local v, hv = read_view(q, id, jk)
    if v and EXPIRABLE[v.state] then
      expire_job(q, id, jk, v, now, nowIso, hv)
      out[#out + 1] = redis.call('HGETALL', jk)
    else
      redis.call('ZREM', qkey(q, 'exp'), id)
    end
  end
end
return out
