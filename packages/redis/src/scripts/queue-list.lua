--[[ queue-list.lua: Driver.queueList. Read only.
KEYS: none (P:queues and every P:{q}:meta).
ARGV: P.
Returns: HGETALL of each queue record, by name.
Transition: none. ]]
--!include lib/keys.lua

local names = redis.call('SMEMBERS', QUEUES)
table.sort(names)
local out = {}
for k, q in ipairs(names) do out[k] = redis.call('HGETALL', qkey(q, 'meta')) end
return out
