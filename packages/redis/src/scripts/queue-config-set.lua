--[[ queue-config-set.lua: Driver.queueConfigSet. Stores a queue's configuration, registering the queue.
KEYS: none (P:queue-config, P:queues and P:{q}:meta).
ARGV: P, name, config (JSON text), nowIso.
Returns: the stored JSON text.
Transition: none (the engine reads the bounds and hands them to job-insert.lua). ]]
--!include lib/generated.lua
--!include lib/keys.lua
--!include lib/indexes.lua

queue_register(ARGS[2], ARGS[4])
redis.call('HSET', P .. ':queue-config', ARGS[2], ARGS[3])
return ARGS[3]
