--[[ queue-config-get.lua: Driver.queueConfigGet. Read only.
KEYS: none (P:queue-config).
ARGV: P, name.
Returns: the stored JSON text, or false when the queue was never configured.
Transition: none. ]]
--!include lib/keys.lua

return redis.call('HGET', P .. ':queue-config', ARGS[2])
