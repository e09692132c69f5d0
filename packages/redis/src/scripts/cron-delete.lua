--[[ cron-delete.lua: Driver.cronDelete. Removes a cron (its enqueued jobs stay).
KEYS: none (P:crons).
ARGV: P, name.
Returns: the removed record JSON, or nil.
Transition: none. ]]
--!include lib/keys.lua

local record = redis.call('HGET', P .. ':crons', ARGS[2])
if record then redis.call('HDEL', P .. ':crons', ARGS[2]) end
return record
