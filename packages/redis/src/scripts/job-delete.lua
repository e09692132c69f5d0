--[[ job-delete.lua: Driver.jobDelete. Removes a job entirely when the guards hold.
KEYS: none (reads P:ids, then touches the job's queue keys, P:ids and P:u:<key>).
ARGV: P, id, states (",s1,s2," or '' for any), deadLetter ('1'|'0'|'' for any).
Returns: HGETALL of the job as it was, or nil when absent or a guard failed.
Transition: any state (within the guard) -> deleted. ]]
--!include lib/generated.lua
--!include lib/keys.lua
--!include lib/indexes.lua

local id, states, dl = ARGS[2], ARGS[3], ARGS[4]
local q, jk = locate(id)
local v = q and read_view(q, id, jk)
if not v then return nil end
if states ~= '' and not string.find(states, ',' .. v.state .. ',', 1, true) then return nil end
if dl ~= '' and (v['@deadLetter'] == '1') ~= (dl == '1') then return nil end
local fields = redis.call('HGETALL', jk)
job_remove(q, id, jk)
return fields
