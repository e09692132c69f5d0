--[[ worker-set-directive.lua: Driver.workerSetDirective. Sets an operator directive (sticky per worker id).
KEYS: none (P:workers, P:worker-directives).
ARGV: P, workerId, directive, record JSON used when the worker has never been recorded.
Returns: the stored record JSON (without directive).
Transition: none (worker bookkeeping). ]]
--!include lib/keys.lua

redis.call('HSET', P .. ':worker-directives', ARGS[2], ARGS[3])
redis.call('HSETNX', P .. ':workers', ARGS[2], ARGS[4])
return redis.call('HGET', P .. ':workers', ARGS[2])
