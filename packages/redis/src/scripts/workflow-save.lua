--[[ workflow-save.lua: Driver.workflowSave. Writes a workflow document under a version guard and inserts
its jobs in the same atomic step (next chain step, batch callbacks).
KEYS: none (P:wf:<id>, and the queues of the jobs inserted).
ARGV: P, now, nowIso, id, expectVersion ('' to create), version, doc JSON, nJobs, job records (lib/insert.lua).
Returns: 1 when written, 0 when the guard failed (nothing written).
Transition: (new) -> each job's state. Jobs whose id is stored already, or that a unique `reject` blocks, are
  skipped (re-drives are idempotent); `ignore` and `replace*` apply as in job-insert.lua. ]]
--!include lib/generated.lua
--!include lib/keys.lua
--!include lib/indexes.lua
--!include lib/insert.lua

local now, nowIso, id, expect, version, doc = tonumber(ARGS[2]), ARGS[3], ARGS[4], ARGS[5], ARGS[6], ARGS[7]
local wk = P .. ':wf:' .. id
local stored = redis.call('HGET', wk, 'v')
if expect == '' then
  if stored then return 0 end
elseif stored ~= expect then
  return 0
end
local jobs = read_jobs(9, tonumber(ARGS[8]))
local S = insert_begin()
insert_prefetch(S, jobs)
local decisions = plan_insert(S, jobs, now, 'skip')
apply_insert(S, decisions, now, nowIso)
insert_finish(S)
redis.call('HSET', wk, 'v', version, 'doc', doc)
return 1
