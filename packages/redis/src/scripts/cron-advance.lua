--[[ cron-advance.lua: Driver.cronAdvance. One firing per occurrence: a compare-and-set on the stored record.
The caller read the record (whose nextRunMs it checked) and sends the patched record; the write applies only
while the stored record is still byte-for-byte the one read, so a concurrent firer or upsert makes it fail
(the caller re-reads and re-checks nextRunMs).
KEYS: none (P:crons).
ARGV: P, name, expected record JSON, new record JSON.
Returns: 1 when written, 0 otherwise.
Transition: none (cron bookkeeping). ]]
--!include lib/keys.lua

if redis.call('HGET', P .. ':crons', ARGS[2]) ~= ARGS[3] then return 0 end
redis.call('HSET', P .. ':crons', ARGS[2], ARGS[4])
return 1
