--[[ job-insert.lua: Driver.jobInsert. Stores new jobs all-or-nothing, honouring ids and unique keys.
Several inserts issued together (concurrent producers) arrive as groups; each group is one jobInsert call,
planned and applied on its own, in order, exactly as if the calls had run one after the other.
KEYS: none (keys derive from the prefix; spans queues when the jobs do, and touches the global P:ids,
      P:queues and P:u:<key> keys).
ARGV: (packed as one JSON array) P, nGroups, then per group: now, nowIso, nJobs, bounds ('' or a JSON object
      queue -> max_depth, backpressure; '*': read each job queue's max_depth from P:queue-config), nJobs job records (see lib/insert.lua). Groups are read first, so which
      ids are stored already, and the backlog of each bounded queue, are read once for them all.
Returns (as JSON): one result per group:
  1 when every job of the group was inserted as sent (the usual case), else
  {'ok', outcomes}, one per job in order: {'inserted', replacedFields|false, takenScheduledAt|false,
      takenDueAt|false} or {'existing', fields}
  {'abort', index (0-based), 'duplicate_id'|'unique', existingFields|false, batchIndex (0-based)|false}
      (batchIndex: the clash is with an earlier job of this insert, which is not stored)
  {'abort', index (0-based), 'queue_full', queue, depth, bound} when a job would take its queue's backlog
      (the states of core's STATE_SETS.backlog, from P:{q}:counts) past the group's bound for it
  A group with bounds answers {'ok', outcomes, depths} (depths: queue -> backlog after the insert), never 1.
Transitions: (new) -> available|scheduled|pending; on a unique `replace*`, the match -> cancelled. Each appends
  its history line (lib/history.lua).
Atomicity: plan first, write after (lib/insert.lua), so an aborted group writes nothing. ]]
--!include lib/queue-basics.lua
--!include lib/history.lua

-- The usual insert, done here before the libraries below are set up (defining their functions and tables
-- costs each call more than storing one job, and an enqueue to an idle worker waits on it): every job of
-- every group plain (see lib/insert.lua) and `available`, no id stored already or given twice. It reads all
-- it needs first and writes nothing until it knows it can finish; otherwise the general insert below runs.
-- It writes what store_job and insert_finish write for such jobs.
do
  local A = cjson.decode(ARGV[1])
  local P = A[1]
  local jobs, seen, i = {}, {}, 3
  local short = true
  for _ = 1, tonumber(A[2]) do
    local nowIso, njobs = A[i + 1], tonumber(A[i + 2])
    -- a bounded group (backpressure) takes the general path, which checks bounds
    if A[i + 3] ~= '' then short = false end
    i = i + 4
    for _ = 1, njobs do
      local n, id, plain = tonumber(A[i]), A[i + 1], A[i + 5]
      if A[i + 3] ~= STATE.claimable or (plain ~= 1 and plain ~= '1') or seen[id] then
        short = false
        break
      end
      seen[id] = true
      jobs[#jobs + 1] = { id, A[i + 2], tonumber(A[i + 4]) or 0, i + 6, i + 5 + 2 * n, nowIso }
      i = i + 6 + 2 * n
    end
    if not short then break end
  end
  if short and #jobs > 0 then
    local ids = {}
    for k, job in ipairs(jobs) do ids[k] = job[1] end
    for a = 1, #ids, 1000 do
      for _, q in ipairs(redis.call('HMGET', P .. ':ids', unpack(ids, a, math.min(#ids, a + 999)))) do
        if q then short = false end
      end
    end
  end
  if short and #jobs > 0 then
    local seqs, order, byQueue, directory = {}, {}, {}, {}
    for _, job in ipairs(jobs) do
      local id, q, to = job[1], job[2], job[5]
      local base = queue_base(P, q)
      local b = byQueue[q]
      if not b then
        b = { base = base, seq = tonumber(redis.call('GET', base .. 'seq')) or 0, scores = {} }
        byQueue[q] = b
        order[#order + 1] = q
        register_queue(P .. ':queues', base, q, job[6])
      end
      b.seq = b.seq + 1
      redis.call('HSET', base .. 'j:' .. id, unpack(A, job[4], to))
      if HISTORY_ON then hist_push(base, id, hist_insert_line(A[to], job[6], STATE.claimable)) end
      directory[#directory + 1] = id
      directory[#directory + 1] = q
      b.scores[#b.scores + 1] = avail_score(job[3], b.seq)
      b.scores[#b.scores + 1] = id
    end
    for a = 1, #directory, 4000 do redis.call('HSET', P .. ':ids', unpack(directory, a, math.min(#directory, a + 3999))) end
    for _, q in ipairs(order) do
      local b = byQueue[q]
      redis.call('SET', b.base .. 'seq', b.seq)
      for a = 1, #b.scores, 4000 do redis.call('ZADD', b.base .. 'avail', unpack(b.scores, a, math.min(#b.scores, a + 3999))) end
      redis.call('HINCRBY', b.base .. 'counts', STATE.claimable, #b.scores / 2)
    end
    return '[' .. string.rep('1,', tonumber(A[2]) - 1) .. '1]'
  end
end

--!include lib/generated.lua
--!include lib/keys.lua
--!include lib/indexes.lua
--!include lib/insert.lua

local out = {}
local S = insert_begin()
local groups, all = {}, {}
-- Backpressure: the backlog of each bounded queue, read before any group writes (counts of plain jobs are
-- written only by insert_finish), then carried from group to group here.
local DEPTH = {}
local i = 3
for g = 1, tonumber(ARGS[2]) do
  local now, nowIso, njobs, boundsText = tonumber(ARGS[i]), ARGS[i + 1], tonumber(ARGS[i + 2]), ARGS[i + 3]
  local jobs
  jobs, i = read_jobs(i + 4, njobs)
  local bounds = false
  if boundsText == '*' then
    -- the engine has no copy of the configurations yet: each job queue's max_depth from P:queue-config
    for _, job in ipairs(jobs) do
      if not bounds or bounds[job.queue] == nil then
        local text = redis.call('HGET', P .. ':queue-config', job.queue)
        local bound = text and cjson.decode(text).max_depth
        if type(bound) == 'number' then
          bounds = bounds or {}
          bounds[job.queue] = bound
        end
      end
    end
  elseif boundsText ~= '' then
    bounds = cjson.decode(boundsText)
  end
  if bounds then
    for q in pairs(bounds) do
      if DEPTH[q] == nil then
        local depth = 0
        for _, n in ipairs(redis.call('HMGET', qkey(q, 'counts'), unpack(BACKLOG))) do depth = depth + (tonumber(n) or 0) end
        DEPTH[q] = depth
      end
    end
  end
  groups[g] = { now, nowIso, jobs, bounds }
  for _, job in ipairs(jobs) do all[#all + 1] = job end
end

-- The first job that would take a bounded queue past its bound, as an abort; else the depths after the group.
local function check_bounds(jobs, bounds)
  local depths = {}
  for q in pairs(bounds) do depths[q] = DEPTH[q] end
  for k, job in ipairs(jobs) do
    local bound = bounds[job.queue]
    if bound and BACKLOG_IN[job.state] then
      local depth = depths[job.queue]
      if depth + 1 > bound then return { 'abort', k - 1, 'queue_full', job.queue, depth, bound } end
      depths[job.queue] = depth + 1
    end
  end
  return nil, depths
end

insert_prefetch(S, all)
idx_defer()
for g, group in ipairs(groups) do
  local now, nowIso, jobs, bounds = group[1], group[2], group[3], group[4]
  local full, depths
  if bounds then full, depths = check_bounds(jobs, bounds) end
  local decisions, abort
  if not full then decisions, abort = plan_insert(S, jobs, now, 'abort') end
  if full or abort then
    out[g] = full or abort
  else
    local outcomes, plainly = apply_insert(S, decisions, now, nowIso)
    if bounds then
      for q, depth in pairs(depths) do DEPTH[q] = depth end
      out[g] = { 'ok', outcomes, depths }
    -- the usual case in one number: encoding the outcome tables was a fifth of a one-job insert's cost
    elseif plainly then out[g] = 1 else out[g] = { 'ok', outcomes } end
  end
end
insert_finish(S)
idx_flush()
return cjson.encode(out)
