--[[ job-claim.lua: Driver.jobClaim. Hands up to `limit` jobs to one worker; no job ever goes to two claimers.
KEYS: none. Touches only P:{q}:* keys of the queues named (one queue: one hash slot; several queues span
      them, see README).
ARGV: (packed as one JSON array) P, limit, workerId, now, nowIso, visibilityMs|'' (per job @visibilityMs when empty), queue1, queue2, ...
Returns (as JSON): {claimed, promoted, expired}: claimed = HGETALL of each claimed job (as it is after the claim) in
  claim order; promoted = summaries (id, type, queue, state, attempt, workflow_id, from-state); expired =
  HGETALL of each expired job.
Transitions, per queue in order, paused queues skipped:
  scheduled|retryable -> available   (@dueAt <= now, up to PROMOTE_BATCH per queue per claim)
  scheduled|retryable|available -> discarded   (@expiresAt < now: discarded_at = expired_at = nowIso)
  available -> active   (attempt + 1, started_at, worker_id, @claimVisibilityMs, @visibleUntil, @timeoutAt;
                         next_attempt_at and @progress removed) ]]
--!include lib/generated.lua
--!include lib/keys.lua
--!include lib/indexes.lua
--!include lib/expire.lua

local PROMOTE_BATCH = 1000
local limit, worker, now, nowIso, vis = tonumber(ARGS[2]), ARGS[3], tonumber(ARGS[4]), ARGS[5], ARGS[6]
local claimed, promoted, expired = {}, {}, {}

-- The fields a claim reads or rewrites; claim_one notes where each sits in the HGETALL reply.
local CLAIM_FIELDS = { state = true, attempt = true, started_at = true, worker_id = true, next_attempt_at = true,
  ['@expiresAt'] = true, ['@deadLetter'] = true, ['@visibilityMs'] = true, ['@timeoutMs'] = true,
  ['@claimVisibilityMs'] = true, ['@visibleUntil'] = true, ['@timeoutAt'] = true, ['@progress'] = true }

-- The claim's numbers as exact decimal text (cjson would round numbers to 14 digits), memoized per call by
-- the stored text they derive from: the jobs of a batch mostly share them, and formatting a number (printf)
-- costs more than the rest of a job's claim.
local memo = { vis = {}, timeout = {}, attempt = {} }

-- {claimVisibilityMs text, visibleUntil, visibleUntil text} for a job whose @visibilityMs is `stored`.
local function visibility(stored)
  local key = stored or ''
  local e = memo.vis[key]
  if not e then
    local cv = tonumber(vis) or tonumber(stored) or 0
    e = { int(cv), now + cv, int(now + cv) }
    memo.vis[key] = e
  end
  return e
end

-- {timeoutAt, timeoutAt text} for a job whose @timeoutMs is `stored`; false when it is not a number.
local function timeout(stored)
  local e = memo.timeout[stored]
  if e == nil then
    local ms = tonumber(stored)
    e = ms and { now + ms, int(now + ms) } or false
    memo.timeout[stored] = e
  end
  return e
end

-- The attempt text after a claim, for a job whose attempt is `stored`.
local function next_attempt(stored)
  local key = stored or ''
  local e = memo.attempt[key]
  if not e then
    e = int((tonumber(stored) or 0) + 1)
    memo.attempt[key] = e
  end
  return e
end

-- Claims one available job whose hash is `h` (HGETALL, already popped from the available index); returns
-- the hash as it is afterwards, built without reading it again. One pass over `h` finds the few fields
-- concerned (a lookup table of every field, or a closure per job, cost more than the claim's own writes).
local function claim_one(q, id, jk, h, counts, active)
  local at = {}
  for k = 1, #h, 2 do
    if CLAIM_FIELDS[h[k]] then at[h[k]] = k + 1 end
  end
  local p = at['@expiresAt']
  local expiresAt = p and tonumber(h[p])
  if expiresAt and expiresAt < now then
    p = at['@deadLetter']
    local v = { state = 'available', ['@expiresAt'] = h[at['@expiresAt']], ['@finishedAt'] = false, ['@deadLetter'] = p and h[p] or false }
    -- already out of the available index: only the count and the expiry index are left
    incr(counts, 'available', -1)
    redis.call('ZREM', qkey(q, 'exp'), id)
    redis.call('HSET', jk, 'state', 'discarded', 'discarded_at', nowIso, 'expired_at', nowIso, '@finishedAt', now)
    v.state = 'discarded'
    v['@finishedAt'] = now
    idx_add(q, id, jk, v, true)
    expired[#expired + 1] = redis.call('HGETALL', jk)
    return
  end
  p = at['@visibilityMs']
  local cv = visibility(p and h[p])
  p = at['@timeoutMs']
  local to = p and timeout(h[p])
  p = at.attempt
  local writes = { 'state', 'active', 'attempt', next_attempt(p and h[p]), 'started_at', nowIso, 'worker_id', worker,
    '@claimVisibilityMs', cv[1], '@visibleUntil', cv[3] }
  local score = cv[3]
  if to then
    if to[1] < cv[2] then score = to[2] end
    writes[13] = '@timeoutAt'
    writes[14] = to[2]
  end
  redis.call('HSET', jk, unpack(writes))
  local dropNext, dropProgress, dropTimeout = at.next_attempt_at, at['@progress'], not to and at['@timeoutAt']
  if dropNext or dropProgress or dropTimeout then
    local dels = {}
    if dropNext then dels[#dels + 1] = 'next_attempt_at' end
    if dropProgress then dels[#dels + 1] = '@progress' end
    if dropTimeout then dels[#dels + 1] = '@timeoutAt' end
    redis.call('HDEL', jk, unpack(dels))
  end
  if expiresAt then redis.call('ZREM', qkey(q, 'exp'), id) end
  incr(counts, 'available', -1)
  incr(counts, 'active', 1)
  zadd(active, score, id)
  -- the reply: the hash as read, with the writes applied and the removals dropped
  for k = 1, #writes, 2 do
    p = at[writes[k]]
    if p then
      h[p] = writes[k + 1]
    else
      h[#h + 1] = writes[k]
      h[#h + 1] = writes[k + 1]
    end
  end
  if dropNext or dropProgress or dropTimeout then
    local out = {}
    for k = 1, #h, 2 do
      local f = h[k]
      if not ((dropNext and f == 'next_attempt_at') or (dropProgress and f == '@progress') or (dropTimeout and f == '@timeoutAt')) then
        out[#out + 1] = f
        out[#out + 1] = h[k + 1]
      end
    end
    h = out
  end
  claimed[#claimed + 1] = h
end

idx_defer()
for qi = 7, #ARGS do
  if #claimed >= limit then break end
  local q = ARGS[qi]
  if redis.call('HGET', qkey(q, 'meta'), 'paused') ~= '1' then
    promote_due(q, now, nowIso, PROMOTE_BATCH, promoted, expired)
    -- the pops below must see the jobs promoted just now
    idx_flush()
    local avail, counts, active = qkey(q, 'avail'), qkey(q, 'counts'), qkey(q, 'active')
    while #claimed < limit do
      -- ZRANGE + ZREMRANGEBYRANK rather than ZPOPMIN, whose reply formats every score with printf
      local popped = redis.call('ZRANGE', avail, 0, limit - #claimed - 1)
      if #popped == 0 then break end
      redis.call('ZREMRANGEBYRANK', avail, 0, #popped - 1)
      for k = 1, #popped do
        local id = popped[k]
        local jk = jkey(q, id)
        local h = redis.call('HGETALL', jk)
        if #h > 0 then claim_one(q, id, jk, h, counts, active) end
      end
    end
  end
end

idx_flush()
return cjson.encode({ claimed, promoted, expired })
