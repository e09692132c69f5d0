--[[ lib/insert.lua: planning and storing new jobs (shared by job-insert, workflow-save).
Requires lib/keys.lua, lib/indexes.lua and the generated tables (REPLACEABLE, DEFAULT_UNIQUE_STATES).

A job is read from ARGV starting at index i: nFields, then nFields field/value pairs as stored in the hash
(envelope fields plus '@'-prefixed internals).

An insert is planned before anything is written: plan_insert decides every job against a simulated view of
the store (so jobs earlier in the same insert count, and a later abort leaves nothing behind), then
apply_insert writes the plan. Mode 'abort' (jobInsert): a duplicate id or a `reject` conflict aborts the
whole insert. Mode 'skip' (workflowSave re-drives): both skip the job instead. ]]

-- Returns the parsed job { id, queue, state, f = field map, from, to = ARGV range of its pairs } and the next index.
local function read_job(i)
  local n = tonumber(ARGS[i])
  local f = {}
  for k = i + 1, i + 2 * n, 2 do f[ARGS[k]] = ARGS[k + 1] end
  return { id = f['id'], queue = f['queue'], state = f['state'], f = f, from = i + 1, to = i + 2 * n }, i + 1 + 2 * n
end

local function read_jobs(i, n)
  local jobs = {}
  for k = 1, n do jobs[k], i = read_job(i) end
  return jobs, i
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

local function fields_of(id)
  local q, jk = locate(id)
  if not q then return false end
  local fields = redis.call('HGETALL', jk)
  if #fields == 0 then return false end
  return fields
end

-- Plans an insert. Returns decisions (one per job: { job, existing = id | replace = id | skip = true,
-- takeover = {scheduledAt, dueAt} }) or, in mode 'abort', an abort reply.
local function plan_insert(jobs, now, mode)
  -- id -> { state, untilMs, scheduledAt, dueAt, n (1-based index when staged by this insert) }
  local sim = {}
  local byKey = {}

  local function view(id)
    local s = sim[id]
    if s then return s end
    local q = redis.call('HGET', IDS, id)
    if not q then return nil end
    local f = redis.call('HMGET', jkey(q, id), 'state', '@uniqueUntil', 'scheduled_at', '@dueAt')
    if not f[1] then return nil end
    s = { state = f[1], untilMs = tonumber(f[2]), scheduledAt = f[3] or nil, dueAt = tonumber(f[4]) }
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
    if (prior and prior.n) or redis.call('HEXISTS', IDS, id) == 1 then
      if mode ~= 'skip' then
        return nil, { 'abort', n - 1, 'duplicate_id', fields_of(id), prior and prior.n and prior.n - 1 or false }
      end
      d.skip = true
    end
    local uk = job.f['@uniqueKey']
    if not d.skip and uk then
      local m = find_match(uk, job.f['@uniqueStates'] or DEFAULT_UNIQUE_STATES)
      if m then
        local policy = job.f['@uniqueOnConflict'] or 'reject'
        local mv = sim[m]
        if policy == 'reject' then
          if mode ~= 'skip' then
            return nil, { 'abort', n - 1, 'unique', fields_of(m), mv.n and mv.n - 1 or false }
          end
          d.skip = true
        elseif policy == 'ignore' then
          d.existing = m
        else
          if REPLACEABLE[mv.state] then
            d.replace = m
            mv.state = 'cancelled'
          end
          if policy == 'replace_except_schedule' and mv.scheduledAt
            and (job.state == 'scheduled' or job.state == 'available') then
            local due = mv.dueAt or rfc3339_ms(mv.scheduledAt) or now
            job.state = 'scheduled'
            job.takeover = { mv.scheduledAt, due }
          end
        end
      end
    end
    if not d.skip and not d.existing then
      local f = job.f
      local scheduledAt, dueAt = f['scheduled_at'], tonumber(f['@dueAt'])
      if job.takeover then scheduledAt, dueAt = job.takeover[1], job.takeover[2] end
      sim[id] = { state = job.state, untilMs = tonumber(f['@uniqueUntil']), n = n, scheduledAt = scheduledAt, dueAt = dueAt }
      if uk then
        byKey[uk] = byKey[uk] or {}
        table.insert(byKey[uk], id)
      end
    end
    decisions[n] = d
  end
  return decisions, nil
end

-- Stores a planned job: hash, directory, queue registration, unique membership, indexes.
local function store_job(job, nowIso, registered)
  local jk = jkey(job.queue, job.id)
  local f = job.f
  local args = { 'HSET', jk }
  for k = job.from, job.to do args[#args + 1] = ARGS[k] end
  local v = { state = job.state, priority = f['priority'] or false, ['@seq'] = false, ['@dueAt'] = f['@dueAt'] or false,
    ['@visibleUntil'] = f['@visibleUntil'] or false, ['@timeoutAt'] = f['@timeoutAt'] or false,
    ['@finishedAt'] = f['@finishedAt'] or false, ['@deadLetter'] = f['@deadLetter'] or false,
    ['@expiresAt'] = f['@expiresAt'] or false }
  if job.takeover then
    args[#args + 1] = 'state'
    args[#args + 1] = 'scheduled'
    args[#args + 1] = 'scheduled_at'
    args[#args + 1] = job.takeover[1]
    args[#args + 1] = '@dueAt'
    args[#args + 1] = job.takeover[2]
    v['@dueAt'] = job.takeover[2]
  end
  if job.state == 'available' then
    -- the FIFO sequence goes in the same HSET
    local seq = redis.call('INCR', qkey(job.queue, 'seq'))
    args[#args + 1] = '@seq'
    args[#args + 1] = seq
    v['@seq'] = seq
  end
  redis.call(unpack(args))
  if job.takeover and f['enqueued_at'] then redis.call('HDEL', jk, 'enqueued_at') end
  redis.call('HSET', IDS, job.id, job.queue)
  if not registered[job.queue] then
    queue_register(job.queue, nowIso)
    registered[job.queue] = true
  end
  if f['@uniqueKey'] then redis.call('SADD', ukey(f['@uniqueKey']), job.id) end
  idx_add(job.queue, job.id, jk, v, false)
end

-- Writes a plan. Returns one outcome per job that is not skipped:
--   {'inserted', replacedFields|false, takenScheduledAt|false, takenDueAt|false} or {'existing', fields}
local function apply_insert(decisions, now, nowIso)
  local out = {}
  local registered = {}
  for _, d in ipairs(decisions) do
    if d.existing then
      out[#out + 1] = { 'existing', fields_of(d.existing) }
    elseif not d.skip then
      local replaced = false
      if d.replace then
        local q, jk = locate(d.replace)
        local v = read_view(jk)
        idx_remove(q, d.replace, v)
        redis.call('HSET', jk, 'state', 'cancelled', 'cancelled_at', nowIso, '@finishedAt', now)
        v.state = 'cancelled'
        v['@finishedAt'] = now
        idx_add(q, d.replace, jk, v, true)
        replaced = redis.call('HGETALL', jk)
      end
      store_job(d.job, nowIso, registered)
      local t = d.job.takeover or { false, false }
      out[#out + 1] = { 'inserted', replaced, t[1], t[2] and int(t[2]) }
    end
  end
  return out
end
