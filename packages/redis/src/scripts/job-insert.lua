--[[ job-insert.lua: Driver.jobInsert. Stores new jobs all-or-nothing, honouring ids and unique keys.
Several inserts issued together (concurrent producers) arrive as groups; each group is one jobInsert call,
planned and applied on its own, in order, exactly as if the calls had run one after the other.
KEYS: none (keys derive from the prefix; spans queues when the jobs do, and touches the global P:ids,
      P:queues and P:u:<key> keys).
ARGV: (packed as one JSON array) P, nGroups, then per group: now, nowIso, nJobs, nJobs job records (see
      lib/insert.lua). Groups are read first, so which ids are stored already is read once for them all.
Returns (as JSON): one result per group:
  1 when every job of the group was inserted as sent (the usual case), else
  {'ok', outcomes}, one per job in order: {'inserted', replacedFields|false, takenScheduledAt|false,
      takenDueAt|false} or {'existing', fields}
  {'abort', index (0-based), 'duplicate_id'|'unique', existingFields|false, batchIndex (0-based)|false}
      (batchIndex: the clash is with an earlier job of this insert, which is not stored)
Transitions: (new) -> available|scheduled|pending; on a unique `replace*`, the match -> cancelled.
Atomicity: plan first, write after (lib/insert.lua), so an aborted group writes nothing. ]]
--!include lib/generated.lua
--!include lib/keys.lua
--!include lib/indexes.lua
--!include lib/insert.lua

local out = {}
local S = insert_begin()
local groups, all = {}, {}
local i = 3
for g = 1, tonumber(ARGS[2]) do
  local now, nowIso, njobs = tonumber(ARGS[i]), ARGS[i + 1], tonumber(ARGS[i + 2])
  local jobs
  jobs, i = read_jobs(i + 3, njobs)
  groups[g] = { now, nowIso, jobs }
  for _, job in ipairs(jobs) do all[#all + 1] = job end
end
insert_prefetch(S, all)
idx_defer()
for g, group in ipairs(groups) do
  local now, nowIso, jobs = group[1], group[2], group[3]
  local decisions, abort = plan_insert(S, jobs, now, 'abort')
  if abort then
    out[g] = abort
  else
    local outcomes, plainly = apply_insert(S, decisions, now, nowIso)
    -- the usual case in one number: encoding the outcome tables was a fifth of a one-job insert's cost
    if plainly then out[g] = 1 else out[g] = { 'ok', outcomes } end
  end
end
insert_finish(S)
idx_flush()
return cjson.encode(out)
