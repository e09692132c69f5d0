--[[ queue-get.lua: Driver.queueGet. Read only.
KEYS: none (P:{q}:meta).
ARGV: P, name.
Returns: HGETALL of the queue record (empty when unknown).
Transition: none. ]]
--!include lib/keys.lua

if redis.call('SISMEMBER', QUEUES, ARGV[2]) == 0 then return {} end
return redis.call('HGETALL', qkey(ARGV[2], 'meta'))
