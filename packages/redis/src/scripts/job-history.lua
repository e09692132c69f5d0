--[[ job-history.lua: Driver.jobHistory. A job's history lines (lib/history.lua), read in one step.
KEYS: none (reads P:ids, then the job's queue's keys).
ARGV: P, id.
Returns: nil when no such job, else {lines (oldest first), dropped}.
Transition: none. ]]
--!include lib/keys.lua

local id = ARGS[2]
local q = redis.call('HGET', IDS, id)
if not q then return nil end
local base = qkey(q, '')
return { redis.call('LRANGE', base .. 'h:' .. id, 0, -1), tonumber(redis.call('HGET', base .. 'hdrop', id)) or 0 }
