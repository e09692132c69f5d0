--[[ job-prune.lua: Driver.jobPrune. Retention: deletes finished jobs.
KEYS: none (spans every queue in P:queues).
ARGV: P, before, limit, deadLetter ('1' to include dead-lettered jobs).
Returns: how many jobs were deleted.
Transition: completed|cancelled|discarded with @finishedAt < before -> deleted (hash, indexes, directory
  and unique membership). ]]
--!include lib/generated.lua
--!include lib/keys.lua
--!include lib/indexes.lua

local before, limit, withDl = tonumber(ARGS[2]), tonumber(ARGS[3]), ARGS[4] == '1'
local deleted = 0
local sets = { 'fin' }
if withDl then sets[2] = 'dl' end
for _, q in ipairs(redis.call('SMEMBERS', QUEUES)) do
  for _, set in ipairs(sets) do
    if deleted >= limit then return deleted end
    local ids = redis.call('ZRANGEBYSCORE', qkey(q, set), '-inf', '(' .. ARGS[2], 'LIMIT', 0, limit - deleted)
    for _, id in ipairs(ids) do
      job_remove(q, id, jkey(q, id))
      redis.call('ZREM', qkey(q, set), id)  -- in case the hash was already gone
      deleted = deleted + 1
    end
  end
end
return deleted
