--[[ cron-upsert.lua: Driver.cronUpsert. Creates or replaces a cron registration.
KEYS: none (P:crons).
ARGV: P, name, record JSON.
Returns: 1 when created, 0 when replaced.
Transition: none. ]]
--!include lib/keys.lua

return redis.call('HSET', P .. ':crons', ARGS[2], ARGS[3])
