--[[ worker-record.lua: Driver.workerRecord. Records a worker's heartbeat, keeping its directive.
KEYS: none (P:workers, P:worker-directives).
ARGV: P, workerId, record JSON (without directive).
Returns: the worker's directive ('running' when none was set).
Transition: none (worker bookkeeping). ]]
--!include lib/keys.lua

redis.call('HSET', P .. ':workers', ARGS[2], ARGS[3])
return redis.call('HGET', P .. ':worker-directives', ARGS[2]) or 'running'
