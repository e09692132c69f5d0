--[[ queue-set-paused.lua: Driver.queueSetPaused. Persists the pause flag (claims read it), creating the queue.
KEYS: none (P:queues and P:{q}:meta).
ARGV: P, name, paused ('1'|'0'), nowIso.
Returns: HGETALL of the queue record.
Transition: queue running <-> paused (paused_at / resumed_at set when the flag changes). ]]
--!include lib/generated.lua
--!include lib/keys.lua
--!include lib/indexes.lua

local q, paused, nowIso = ARGS[2], ARGS[3], ARGS[4]
queue_register(q, nowIso)
local meta = qkey(q, 'meta')
if redis.call('HGET', meta, 'paused') ~= paused then
  redis.call('HSET', meta, 'paused', paused)
  if paused == '1' then
    redis.call('HSET', meta, 'paused_at', nowIso)
  else
    redis.call('HSET', meta, 'resumed_at', nowIso)
  end
end
return redis.call('HGETALL', meta)
