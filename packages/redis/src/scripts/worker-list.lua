--[[ worker-list.lua: Driver.workerList. Read only.
KEYS: none (P:workers, P:worker-directives).
ARGV: P.
Returns: {records, directives}: flat HGETALL arrays of both hashes.
Transition: none. ]]
--!include lib/keys.lua

return { redis.call('HGETALL', P .. ':workers'), redis.call('HGETALL', P .. ':worker-directives') }
