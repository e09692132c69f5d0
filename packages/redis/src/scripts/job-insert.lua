--[[ job-insert.lua: Driver.jobInsert. Stores new jobs all-or-nothing, honouring ids and unique keys.
KEYS: none (keys derive from the prefix; spans queues when the jobs do, and touches the global P:ids,
      P:queues and P:u:<key> keys).
ARGV: (packed as one JSON array) P, now, nowIso, nJobs, then nJobs job records (see lib/insert.lua).
Returns (as JSON):
  {'ok', outcomes}, one per job in order: {'inserted', replacedFields|false, takenScheduledAt|false,
      takenDueAt|false} or {'existing', fields}
  {'abort', index (0-based), 'duplicate_id'|'unique', existingFields|false, batchIndex (0-based)|false}
      (batchIndex: the clash is with an earlier job of this insert, which is not stored)
Transitions: (new) -> available|scheduled|pending; on a unique `replace*`, the match -> cancelled.
Atomicity: plan first, write after (lib/insert.lua), so an abort writes nothing. ]]
--!include lib/generated.lua
--!include lib/keys.lua
--!include lib/indexes.lua
--!include lib/insert.lua

local now, nowIso, njobs = tonumber(ARGS[2]), ARGS[3], tonumber(ARGS[4])
local jobs = read_jobs(5, njobs)
local decisions, abort = plan_insert(jobs, now, 'abort')
if abort then return cjson.encode(abort) end
return cjson.encode({ 'ok', apply_insert(decisions, now, nowIso) })
