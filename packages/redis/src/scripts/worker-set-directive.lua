--[[ worker-set-directive.lua: Driver.workerSetDirective. Sets an operator directive (sticky per worker id).
KEYS: none (P:workers, P:worker-directives).
ARGV: P, workerId, directive, record JSON used when the worker has never been recorded.
Returns: the stored record JSON (without directive).
Transition: none (worker bookkeeping). ]]
--!include lib/keys.lua

redis.call('HSET', P .. ':worker-directives', ARGV[2], ARGV[3])
redis.call('HSETNX', P .. ':workers', ARGV[2], ARGV[4])
return redis.call('HGET', P .. ':workers', ARGV[2])
