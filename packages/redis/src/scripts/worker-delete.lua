--[[ worker-delete.lua: Driver.workerDelete. Forgets a worker and its directive.
KEYS: none (P:workers, P:worker-directives).
ARGV: P, workerId.
Returns: 1.
Transition: none. ]]
--!include lib/keys.lua

redis.call('HDEL', P .. ':workers', ARGS[2])
redis.call('HDEL', P .. ':worker-directives', ARGS[2])
return 1
