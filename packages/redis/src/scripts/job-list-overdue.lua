--[[ job-list-overdue.lua: Driver.jobListOverdue. Read only.
KEYS: none (reads every queue in P:queues).
ARGV: P, now, limit.
Returns: HGETALL of active jobs whose min(@visibleUntil, @timeoutAt) <= now, oldest deadline first.
Transition: none. ]]
--!include lib/generated.lua
--!include lib/keys.lua

local now, limit = tonumber(ARGS[2]), tonumber(ARGS[3])
local found = {}
for _, q in ipairs(redis.call('SMEMBERS', QUEUES)) do
  local hits = redis.call('ZRANGEBYSCORE', qkey(q, STATE.claimed), '-inf', now, 'WITHSCORES', 'LIMIT', 0, limit)
  for k = 1, #hits, 2 do
    found[#found + 1] = { q = q, id = hits[k], score = tonumber(hits[k + 1]) }
  end
end
table.sort(found, function(a, b)
  if a.score ~= b.score then return a.score < b.score end
  return a.id < b.id
end)
local out = {}
for k = 1, math.min(limit, #found) do
  out[k] = redis.call('HGETALL', jkey(found[k].q, found[k].id))
end
return out
