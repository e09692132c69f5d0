--[[ lib/insert.lua: planning and storing new jobs (shared by job-insert, workflow-save).
Requires lib/keys.lua, lib/indexes.lua and the generated tables (REPLACEABLE, DEFAULT_UNIQUE_STATES).

A job is read from ARGS starting at index i: nFields, id, queue, state, priority ('' when absent), plain,
then nFields field/value pairs as stored in the hash (envelope fields plus '@'-prefixed internals). `plain`
is 1 when the job has none of the fields the plan or the indexes read from its pairs (unique key, due,
expiry, visibility, timeout and finish times, dead letter): such a job is planned and stored without a
field map.

An insert is planned before anything is written: plan_insert decides every job against a simulated view of
the store (so jobs earlier in the same insert count, and a later abort leaves nothing behind), then
apply_insert writes the plan. Mode 'abort' (jobInsert): a duplicate id or a `reject` conflict aborts the
whole insert. Mode 'skip' (workflowSave re-drives): both skip the job instead. ]]

-- The state an insert carries across its groups and jobs (S below): ids of jobs this script stored (their
-- directory entries, P:ids, are written once at the end by insert_finish), ids already stored before it (one
-- HMGET for the whole insert, instead of an HEXISTS per job), the next FIFO number per queue, and the queues
-- registered. Per-job redis.call()s and Lua tables are most of an insert's cost, hence the batching.
local function insert_begin()
  return { staged = {}, stored = {}, ids = {}, seq = {}, registered = {}, plain = {}, plainKeys = {} }
end

-- Returns the parsed job { id, queue, state, priority, f = field map (non-plain jobs only), from, to = ARGS
-- range of its pairs } and the next index.
local function read_job(i)
  local n = tonumber(ARGS[i])
  local from = i + 6
  local job = { id = ARGS[i + 1], queue = ARGS[i + 2], state = ARGS[i + 3], from = from, to = from + 2 * n - 1 }
  if ARGS[i + 4] ~= '' then job.priority = ARGS[i + 4] end
  local plain = ARGS[i + 5]
  if plain ~= 1 and plain ~= '1' then
    local f = {}
    for k = from, job.to, 2 do f[ARGS[k]] = ARGS[k + 1] end
    -- the fields packed in '@h' by name, as the plan and the indexes read them
    if f['@h'] then
      local hv = hot_split(f['@h'])
      for at = 1, NHOT do
        if hv[at] ~= '' then f[HOT[at]] = hv[at] end
      end
    end
    job.f = f
  end
  return job, job.to + 1
end

local function read_jobs(i, n)
  local jobs = {}
  for k = 1, n do jobs[k], i = read_job(i) end
  return jobs, i
end

-- Reads, in one HMGET per 1 000 ids, which of these jobs' ids are stored already.
local function insert_prefetch(S, jobs)
  for a = 1, #jobs, 1000 do
    local ids = {}
    for k = a, math.min(#jobs, a + 999) do ids[#ids + 1] = jobs[k].id end
    local queues = redis.call('HMGET', IDS, unpack(ids))
    for k, id in ipairs(ids) do
      if queues[k] then S.stored[id] = queues[k] end
    end
  end
end

-- The queue of a stored job (before or by this insert), or nil.
local function insert_locate(S, id)
  local q = S.staged[id] or S.stored[id]
  if q then return q end
  q = redis.call('HGET', IDS, id)
  if q then return q end
  return nil
end

-- The next FIFO number of a queue. Drawn locally and written back by insert_finish: nothing else in an
-- insert script draws from P:{q}:seq (idx_add draws only for jobs entering `available`, which an insert
-- never does but through store_job).
local function next_seq(S, q)
  local seq = S.seq[q]
  if not seq then seq = tonumber(redis.call('GET', qkey(q, 'seq'))) or 0 end
  seq = seq + 1
  S.seq[q] = seq
  return seq
end

-- Indexes a plain job (see read_job) as idx_add would, into per-queue lists written by insert_finish: with
-- no unique key, no later job of the same insert can reach it (replacements find their match by unique
-- key), so its index writes need none of idx_add's per-job bookkeeping.
local function index_plain(S, q, id, state, priority, seq)
  local byState = S.plain[q]
  if not byState then
    byState = {}
    S.plain[q] = byState
    S.plainKeys[#S.plainKeys + 1] = q
  end
  local entry = byState[state]
  if not entry then
    entry = { n = 0 }
    byState[state] = entry
  end
  local score = 0
  if state == STATE.claimable then
    score = avail_score(tonumber(priority) or 0, seq)
  elseif state == STATE.claimed then
    score = '+inf' -- no visibility or timeout deadline (active_score of an empty view)
  end
  entry[#entry + 1] = score
  entry[#entry + 1] = id
  entry.n = entry.n + 1
end

-- Writes what the insert batched: directory entries, FIFO counters and plain jobs' indexes and counts.
local function insert_finish(S)
  local ids = S.ids
  for a = 1, #ids, 4000 do
    redis.call('HSET', IDS, unpack(ids, a, math.min(#ids, a + 3999)))
  end
  for q, seq in pairs(S.seq) do redis.call('SET', qkey(q, 'seq'), seq) end
  for _, q in ipairs(S.plainKeys) do
    for state, entry in pairs(S.plain[q]) do
      local key = qkey(q, index_name(state, false))
      anchor(key, entry)
      for a = 1, #entry, 4000 do
        redis.call('ZADD', key, unpack(entry, a, math.min(#entry, a + 3999)))
      end
      redis.call('HINCRBY', qkey(q, 'counts'), state, entry.n)
    end
  end
end

-- Epoch ms of an RFC 3339 timestamp (for a unique match stored with scheduled_at but no @dueAt).
local function rfc3339_ms(s)
  local y, mo, d, h, mi, sec, rest = string.match(s, '^(%d+)-(%d+)-(%d+)[Tt ](%d+):(%d+):(%d+)(.*)$')
  if not y then return nil end
  y, mo, d = tonumber(y), tonumber(mo), tonumber(d)
  local frac, zone = string.match(rest, '^%.(%d+)(.*)$')
  local ms = 0
  if frac then ms = tonumber(string.sub(frac .. '000', 1, 3)) else zone = rest end
  local offset = 0
  local sign, oh, om = string.match(zone, '^([+-])(%d%d):?(%d%d)$')
  if sign then
    offset = (tonumber(oh) * 60 + tonumber(om)) * 60000
    if sign == '+' then offset = -offset end
  end
  -- days from civil (proleptic Gregorian)
  if mo <= 2 then y = y - 1 end
  local era = math.floor(y / 400)
  local yoe = y - era * 400
  local mp = (mo + 9) % 12
  local doy = math.floor((153 * mp + 2) / 5) + d - 1
  local doe = yoe * 365 + math.floor(yoe / 4) - math.floor(yoe / 100) + doy
  local days = era * 146097 + doe - 719468
  return ((days * 24 + tonumber(h)) * 60 + tonumber(mi)) * 60000 + tonumber(sec) * 1000 + ms + offset
end

local function fields_of(S, id)
  local q = insert_locate(S, id)
  if not q then return false end
  local fields = redis.call('HGETALL', jkey(q, id))
  if #fields == 0 then return false end
  return fields
end

-- What a plan reads of a stored job that may block or be replaced by a new one.
local PLAN_VIEW = { 'state', '@uniqueUntil', 'scheduled_at', '@dueAt' }

-- Plans an insert. Returns decisions (one per job: { job, existing = id | replace = id | skip = true,
-- takeover = {scheduledAt, dueAt} }) or, in mode 'abort', an abort reply.
local function plan_insert(S, jobs, now, mode)
  -- id -> { state, untilMs, scheduledAt, dueAt, n (1-based index when staged by this insert) }
  local sim = {}
  local byKey = {}

  local function view(id)
    local s = sim[id]
    if s then return s end
    local q = insert_locate(S, id)
    if not q then return nil end
    local f = job_read(jkey(q, id), PLAN_VIEW)
    if not f then return nil end
    s = { state = f.state, untilMs = tonumber(f['@uniqueUntil']), scheduledAt = f.scheduled_at or nil, dueAt = tonumber(f['@dueAt']) }
    sim[id] = s
    return s
  end

  local function blocks(id, states)
    local v = view(id)
    return v and string.find(states, ',' .. v.state .. ',', 1, true) and (not v.untilMs or v.untilMs > now)
  end

  local function find_match(uk, states)
    for _, id in ipairs(redis.call('SMEMBERS', ukey(uk))) do
      if blocks(id, states) then return id end
    end
    for _, id in ipairs(byKey[uk] or {}) do
      if blocks(id, states) then return id end
    end
    return nil
  end

  local decisions = {}
  for n, job in ipairs(jobs) do
    local id = job.id
    local prior = sim[id]
    local d = { job = job }
    if (prior and prior.n) or S.staged[id] or S.stored[id] then
      if mode ~= 'skip' then
        return nil, { 'abort', n - 1, 'duplicate_id', fields_of(S, id), prior and prior.n and prior.n - 1 or false }
      end
      d.skip = true
    end
    local uk = job.f and job.f['@uniqueKey']
    if not d.skip and uk then
      local m = find_match(uk, job.f['@uniqueStates'] or DEFAULT_UNIQUE_STATES)
      if m then
        local policy = job.f['@uniqueOnConflict'] or 'reject'
        local mv = sim[m]
        if policy == 'reject' then
          if mode ~= 'skip' then
            return nil, { 'abort', n - 1, 'unique', fields_of(S, m), mv.n and mv.n - 1 or false }
          end
          d.skip = true
        elseif policy == 'ignore' then
          d.existing = m
        else
          if REPLACEABLE[mv.state] then
            d.replace = m
            mv.state = STATE.cancelled
          end
          if policy == 'replace_except_schedule' and mv.scheduledAt
            and STATE_IN.timedOnInsert(job.state) then
            local due = mv.dueAt or rfc3339_ms(mv.scheduledAt) or now
            job.state = STATE.scheduled
            job.takeover = { mv.scheduledAt, due }
          end
        end
      end
    end
    if not d.skip and not d.existing then
      local f = job.f
      if f then
        local scheduledAt, dueAt = f['scheduled_at'], tonumber(f['@dueAt'])
        if job.takeover then scheduledAt, dueAt = job.takeover[1], job.takeover[2] end
        sim[id] = { state = job.state, untilMs = tonumber(f['@uniqueUntil']), n = n, scheduledAt = scheduledAt, dueAt = dueAt }
      else
        sim[id] = { state = job.state, n = n }
      end
      if uk then
        byKey[uk] = byKey[uk] or {}
        table.insert(byKey[uk], id)
      end
    end
    decisions[n] = d
  end
  return decisions, nil
end

-- Stores a planned job: hash, directory (batched), queue registration, unique membership, indexes.
local function store_job(S, job, nowIso)
  local q, id = job.queue, job.id
  local jk = jkey(q, id)
  local seq = false
  if job.state == STATE.claimable then seq = next_seq(S, q) end
  redis.call('HSET', jk, unpack(ARGS, job.from, job.to))
  local ids = S.ids
  ids[#ids + 1] = id
  ids[#ids + 1] = q
  S.staged[id] = q
  if not S.registered[q] then
    queue_register(q, nowIso)
    S.registered[q] = true
  end
  local f = job.f
  if not f then
    index_plain(S, q, id, job.state, job.priority, seq)
  else
    local v = { state = job.state, priority = job.priority, ['@seq'] = seq, ['@dueAt'] = f['@dueAt'],
      ['@visibleUntil'] = f['@visibleUntil'], ['@timeoutAt'] = f['@timeoutAt'], ['@finishedAt'] = f['@finishedAt'],
      ['@deadLetter'] = f['@deadLetter'], ['@expiresAt'] = f['@expiresAt'] }
    if job.takeover then
      local dels = {}
      if f['enqueued_at'] then dels[#dels + 1] = 'enqueued_at' end
      job_write(jk, { 'state', STATE.scheduled, 'scheduled_at', job.takeover[1], '@dueAt', job.takeover[2] }, dels, nil)
      v['@dueAt'] = job.takeover[2]
    end
    if f['@uniqueKey'] then redis.call('SADD', ukey(f['@uniqueKey']), id) end
    idx_add(q, id, jk, v, false)
  end
  if HISTORY_ON then hist_push(qkey(q, ''), id, hist_insert_line(ARGS[job.to], nowIso, job.state)) end
end

-- The outcome of a job inserted without a unique replacement or schedule takeover (one table for them all).
local INSERTED = { 'inserted', false, false, false }

-- Writes a plan. Returns one outcome per job that is not skipped:
--   {'inserted', replacedFields|false, takenScheduledAt|false, takenDueAt|false} or {'existing', fields}
-- and whether every job was plainly inserted (no skip, existing match, replacement or takeover).
local function apply_insert(S, decisions, now, nowIso)
  local out = {}
  local plainly = true
  for _, d in ipairs(decisions) do
    if d.existing then
      plainly = false
      out[#out + 1] = { 'existing', fields_of(S, d.existing) }
    elseif d.skip then
      plainly = false
    else
      local replaced = false
      if d.replace then
        local q = insert_locate(S, d.replace)
        local jk = jkey(q, d.replace)
        local v, hv = read_view(q, d.replace, jk)
        local from = v.state
        idx_remove(q, d.replace, v)
        local set, del = { EFFECT_SET.uniqueReplace }, { EFFECT_DEL.uniqueReplace }
        job_write(jk, set, del, hv)
        -- the view learns the writes inline (view_apply would cost every call of the script its closure)
        for k = 1, #set, 2 do v[set[k]] = set[k + 1] end
        for k = 1, #del do v[del[k]] = false end
        idx_add(q, d.replace, jk, v, true)
        if HISTORY_ON then
          hist_push(qkey(q, ''), d.replace, hist_line(nowIso, from, v.state, TRIGGER.uniqueReplace, v.attempt or '0', v.worker_id))
        end
        replaced = redis.call('HGETALL', jk)
      end
      store_job(S, d.job, nowIso)
      local t = d.job.takeover
      if replaced or t then
        plainly = false
        out[#out + 1] = { 'inserted', replaced, t and t[1] or false, t and int(t[2]) or false }
      else
        out[#out + 1] = INSERTED
      end
    end
  end
  return out, plainly
end
