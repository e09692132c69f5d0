--[[ job-counts.lua: Driver.jobCounts. Read only.
KEYS: none (one queue's P:{q}:counts, or every queue's).
ARGV: P, queue ('' for all queues).
Returns: the count per state, in the order of core's JOB_STATES.
Transition: none. ]]
--!include lib/generated.lua
--!include lib/keys.lua

local queues
if ARGS[2] ~= '' then queues = { ARGS[2] } else queues = redis.call('SMEMBERS', QUEUES) end
local counts = {}
for k = 1, #STATES do counts[k] = 0 end
for _, q in ipairs(queues) do
  local row = redis.call('HMGET', qkey(q, 'counts'), unpack(STATES))
  for k = 1, #STATES do counts[k] = counts[k] + (tonumber(row[k]) or 0) end
end
return counts
