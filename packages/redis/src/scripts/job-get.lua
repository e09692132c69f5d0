--[[ job-get.lua: Driver.jobGet. Read only.
KEYS: none (reads P:ids, then the job's P:{q}:j:<id>).
ARGV: P, id.
Returns: HGETALL of the job, or nil.
Transition: none. ]]
--!include lib/generated.lua
--!include lib/keys.lua
--!include lib/indexes.lua

local q, jk = locate(ARGS[2])
if not q then return nil end
local fields = redis.call('HGETALL', jk)
if #fields == 0 then return nil end
return fields
