--[[ job-counts.lua: Driver.jobCounts. Read only.
KEYS: none (one queue's P:{q}:s:<state> sets, or every queue's).
ARGV: P, queue ('' for all queues).
Returns: the count per state, in the order of core's JOB_STATES.
Transition: none. ]]
--!include lib/generated.lua
--!include lib/keys.lua

local queues
if ARGV[2] ~= '' then queues = { ARGV[2] } else queues = redis.call('SMEMBERS', QUEUES) end
local counts = {}
for k, state in ipairs(STATES) do
  local n = 0
  for _, q in ipairs(queues) do n = n + redis.call('ZCARD', qkey(q, 's:' .. state)) end
  counts[k] = n
end
return counts
