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

-- Claims one available job whose hash is `h` (HGETALL, already popped from the available index); returns
-- the hash as it is afterwards, built without reading it again.
local function claim_one(q, id, jk, h, counts, active)
  local pos = {}
  for k = 1, #h, 2 do pos[h[k]] = k + 1 end
  local function get(field)
    local p = pos[field]
    return p and h[p]
  end
  local expiresAt = tonumber(get('@expiresAt'))
  if expiresAt and expiresAt < now then
    local v = { state = 'available', ['@expiresAt'] = get('@expiresAt'), ['@finishedAt'] = false, ['@deadLetter'] = get('@deadLetter') or false }
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
  local cv = tonumber(vis) or tonumber(get('@visibilityMs')) or 0
  local visibleUntil = now + cv
  local timeoutMs = tonumber(get('@timeoutMs'))
  local attempt = (tonumber(get('attempt')) or 0) + 1
  -- integers as exact decimal strings: the reply goes through cjson, which rounds numbers to 14 digits
  local writes = { 'state', 'active', 'attempt', int(attempt), 'started_at', nowIso, 'worker_id', worker,
    '@claimVisibilityMs', int(cv), '@visibleUntil', int(visibleUntil) }
  local score = visibleUntil
  if timeoutMs then
    local timeoutAt = now + timeoutMs
    if timeoutAt < score then score = timeoutAt end
    writes[#writes + 1] = '@timeoutAt'
    writes[#writes + 1] = int(timeoutAt)
  end
  redis.call('HSET', jk, unpack(writes))
  local dels = {}
  for _, field in ipairs({ 'next_attempt_at', '@progress', '@timeoutAt' }) do
    if pos[field] and not (field == '@timeoutAt' and timeoutMs) then dels[#dels + 1] = field end
  end
  if #dels > 0 then redis.call('HDEL', jk, unpack(dels)) end
  if expiresAt then redis.call('ZREM', qkey(q, 'exp'), id) end
  incr(counts, 'available', -1)
  incr(counts, 'active', 1)
  zadd(active, score, id)
  -- the reply: the hash as read, with the writes applied and the removals dropped
  for k = 1, #writes, 2 do
    local p = pos[writes[k]]
    if p then
      h[p] = writes[k + 1]
    else
      h[#h + 1] = writes[k]
      h[#h + 1] = writes[k + 1]
    end
  end
  if #dels > 0 then
    local out = {}
    local drop = {}
    for _, field in ipairs(dels) do drop[field] = true end
    for k = 1, #h, 2 do
      if not drop[h[k]] then
        out[#out + 1] = h[k]
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
      local popped = redis.call('ZPOPMIN', avail, limit - #claimed)
      if #popped == 0 then break end
      for k = 1, #popped, 2 do
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
