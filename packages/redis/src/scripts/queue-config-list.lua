--[[ queue-config-list.lua: Driver.queueConfigList. Read only.
KEYS: none (P:queue-config).
ARGV: P.
Returns: HGETALL of P:queue-config (name, JSON text, …).
Transition: none. ]]
--!include lib/keys.lua

return redis.call('HGETALL', P .. ':queue-config')
