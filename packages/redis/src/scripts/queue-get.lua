--[[ queue-get.lua: Driver.queueGet. Read only.
KEYS: none (P:{q}:meta).
ARGV: P, name.
Returns: HGETALL of the queue record (empty when unknown).
Transition: none. ]]
--!include lib/keys.lua

if redis.call('SISMEMBER', QUEUES, ARGS[2]) == 0 then return {} end
return redis.call('HGETALL', qkey(ARGS[2], 'meta'))
