--[[ cron-get.lua: Driver.cronGet (and cronList with no name). Read only.
KEYS: none (P:crons).
ARGV: P, name|'' ('' lists every cron).
Returns: the record JSON (or nil), or for a listing the flat HGETALL of P:crons.
Transition: none. ]]
--!include lib/keys.lua

if ARGS[2] == '' then return redis.call('HGETALL', P .. ':crons') end
return redis.call('HGET', P .. ':crons', ARGS[2])
