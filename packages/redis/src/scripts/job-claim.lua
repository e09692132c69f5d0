--[[ job-claim.lua: Driver.jobClaim. Hands up to `limit` jobs to one worker; no job ever goes to two claimers.
KEYS: none. Touches only P:{q}:* keys of the queues named (one queue: one hash slot; several queues span
      them, see README).
ARGV: (packed as one JSON array) P, limit, workerId, now, nowIso, visibilityMs|'' (per job @visibilityMs when empty), queue1, queue2, ...
Returns (as RESP): {claimed, promoted, expired}: claimed = one flat list, per claimed job in claim order (as it is
  after the claim): '@h', '@e' (nil when absent), n, then the n name/value pairs of its other envelope fields
  (fields named '@…' other than those two are internal and left out); promoted = summaries (id, type, queue,
  state, attempt, workflow_id, from-state); expired = HGETALL of each expired job.
  Why flat: RESP-encoding a reply costs ~700 Redis instructions a string and ~1.7k a nested table, so a fresh
  job's HGETALL (6 strings, one table) cost ~9k instructions to send; its two values and a count cost ~2k.
Transitions, per queue in order, paused queues skipped:
  scheduled|retryable -> available   (@dueAt <= now, up to PROMOTE_BATCH per queue per claim)
  scheduled|retryable|available -> discarded   (@expiresAt < now: discarded_at = expired_at = nowIso)
  available -> active   (attempt + 1, started_at, worker_id, @claimVisibilityMs, @visibleUntil, @timeoutAt;
                         next_attempt_at and @progress removed) ]]

-- An empty claim (the usual answer to an idle worker's long-poll) answers before the libraries below are set
-- up: defining their functions costs each call ~110k Redis instructions (callgrind: an empty claim 201k ->
-- 59k). Nothing to claim means no available job and no due one in any queue named, so none to promote, expire
-- or hand out.
do
  local a = cjson.decode(ARGV[1])
  local now = a[4]
  local idle = true
  for qi = 7, #a do
    local base = a[1] .. ':{' .. a[qi] .. '}:'
    if redis.call('ZCARD', base .. 'avail') > 0 or #redis.call('ZRANGEBYSCORE', base .. 'due', '-inf', now, 'LIMIT', 0, 1) > 0 then
      idle = false
      break
    end
  end
  if idle then return { {}, {}, {} } end
end

--!include lib/generated.lua
--!include lib/keys.lua
--!include lib/indexes.lua
--!include lib/expire.lua

local PROMOTE_BATCH = 1000
local limit, worker, now, nowIso, vis = tonumber(ARGS[2]), ARGS[3], tonumber(ARGS[4]), ARGS[5], ARGS[6]
local claimed, promoted, expired = {}, {}, {}
local nclaimed = 0

-- The fields of its own a claim reads or removes (the rest it needs is packed in '@h').
local OWN_FIELDS = { ['@expiresAt'] = true, ['@deadLetter'] = true, next_attempt_at = true, ['@progress'] = true }
-- A claim reads an available job's '@h' through one pattern capturing only what it keeps or needs, in the
-- order HOT gives: attempt; type|priority|enqueued_at (kept as one piece); completed_at; @visibilityMs;
-- @timeoutMs; @finishedAt. It writes the rest (state, started_at, @claimVisibilityMs, @visibleUntil,
-- @timeoutAt, worker_id) and joins the new '@h' in one concatenation. Splitting all 14 fields into a table
-- and joining them again cost ~9k Redis instructions a job more (callgrind, 2026-11-25): each capture is a
-- new Lua string, hashed and interned. The order is checked here, so a change to HOT cannot go unnoticed.
local CLAIM_READ = '^[^|]*|([^|]*)|([^|]*|[^|]*|[^|]*)|[^|]*|([^|]*)|([^|]*)|([^|]*)|[^|]*|[^|]*|[^|]*|([^|]*)|'
if not (#HOT == 14 and HOT_AT.state == 1 and HOT_AT.attempt == 2 and HOT_AT.type == 3 and HOT_AT.priority == 4
  and HOT_AT.enqueued_at == 5 and HOT_AT.started_at == 6 and HOT_AT.completed_at == 7 and HOT_AT['@visibilityMs'] == 8
  and HOT_AT['@timeoutMs'] == 9 and HOT_AT['@claimVisibilityMs'] == 10 and HOT_AT['@visibleUntil'] == 11
  and HOT_AT['@timeoutAt'] == 12 and HOT_AT['@finishedAt'] == 13 and HOT_AT.worker_id == 14) then
  return redis.error_reply('job-claim.lua: the order of HOT changed; update CLAIM_READ and claim_one')
end

-- The claim's numbers as exact decimal text (cjson would round numbers to 14 digits), memoized per call by
-- the stored text they derive from: the jobs of a batch mostly share them, and formatting a number (printf)
-- costs more than the rest of a job's claim.
local memo = { vis = {}, timeout = {}, attempt = {} }

-- {claimVisibilityMs text, visibleUntil, visibleUntil text} for a job whose @visibilityMs is `stored`.
local function visibility(stored)
  local e = memo.vis[stored]
  if not e then
    local cv = tonumber(vis) or tonumber(stored) or 0
    e = { int(cv), now + cv, int(now + cv) }
    memo.vis[stored] = e
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
  local e = memo.attempt[stored]
  if not e then
    e = int((tonumber(stored) or 0) + 1)
    memo.attempt[stored] = e
  end
  return e
end

-- Claims one available job whose hash is `h` (HGETALL, already popped from the available index); appends it
-- to `claimed` as it is afterwards (see Returns), built without reading it again. One pass over `h` finds
-- '@h', '@e', the envelope fields of their own and the few internal fields concerned.
local function claim_one(q, id, jk, h, counts, active)
  local at, hp, ep, own = {}, nil, nil, nil
  for k = 1, #h, 2 do
    local f = h[k]
    if f == '@h' then hp = k + 1
    elseif f == '@e' then ep = k + 1
    elseif f ~= '@seq' then
      if OWN_FIELDS[f] then at[f] = k + 1 end
      if string.byte(f) ~= 64 then
        own = own or {}
        own[#own + 1] = k
      end
    end
  end
  if not hp then return end
  local p = at['@expiresAt']
  local expiresAt = p and tonumber(h[p])
  if expiresAt and expiresAt < now then
    p = at['@deadLetter']
    local v = { state = 'available', ['@expiresAt'] = h[at['@expiresAt']], ['@finishedAt'] = false, ['@deadLetter'] = p and h[p] or false }
    -- already out of the available index: only the count and the expiry index are left
    incr(counts, 'available', -1)
    redis.call('ZREM', qkey(q, 'exp'), id)
    job_write(jk, { 'state', 'discarded', 'discarded_at', nowIso, 'expired_at', nowIso, '@finishedAt', now }, {}, hot_split(h[hp]))
    v.state = 'discarded'
    v['@finishedAt'] = now
    idx_add(q, id, jk, v, true)
    expired[#expired + 1] = redis.call('HGETALL', jk)
    return
  end
  local att, kept, completed, visMs, timeoutMs, finished = string.match(h[hp], CLAIM_READ)
  if not att then error('job-claim.lua: job ' .. id .. ' holds a malformed @h') end
  local cv = visibility(visMs)
  local to = timeout(timeoutMs)
  local score, timeoutAt = cv[3], ''
  if to then
    if to[1] < cv[2] then score = to[2] end
    timeoutAt = to[2]
  end
  local packed = 'active|' .. next_attempt(att) .. '|' .. kept .. '|' .. nowIso .. '|' .. completed .. '|' .. visMs .. '|'
    .. timeoutMs .. '|' .. cv[1] .. '|' .. cv[3] .. '|' .. timeoutAt .. '|' .. finished .. '|' .. worker
  redis.call('HSET', jk, '@h', packed)
  h[hp] = packed
  local dropNext, dropProgress = at.next_attempt_at, at['@progress']
  if dropNext or dropProgress then
    local dels = {}
    if dropNext then dels[#dels + 1] = 'next_attempt_at' end
    if dropProgress then dels[#dels + 1] = '@progress' end
    redis.call('HDEL', jk, unpack(dels))
  end
  if expiresAt then redis.call('ZREM', qkey(q, 'exp'), id) end
  incr(counts, 'available', -1)
  incr(counts, 'active', 1)
  zadd(active, score, id)
  -- the reply: '@h' as rewritten, '@e', and the envelope fields of their own but the one removed
  local c = #claimed
  claimed[c + 1] = packed
  claimed[c + 2] = ep and h[ep] or false
  claimed[c + 3] = 0
  local n = 0
  if own then
    for _, k in ipairs(own) do
      if not (dropNext and h[k] == 'next_attempt_at') then
        claimed[c + 4 + 2 * n] = h[k]
        claimed[c + 5 + 2 * n] = h[k + 1]
        n = n + 1
      end
    end
  end
  claimed[c + 3] = n
  nclaimed = nclaimed + 1
end

idx_defer()
for qi = 7, #ARGS do
  if nclaimed >= limit then break end
  local q = ARGS[qi]
  if redis.call('HGET', qkey(q, 'meta'), 'paused') ~= '1' then
    promote_due(q, now, nowIso, PROMOTE_BATCH, promoted, expired)
    -- the pops below must see the jobs promoted just now
    idx_flush()
    local avail, counts, active = qkey(q, 'avail'), qkey(q, 'counts'), qkey(q, 'active')
    while nclaimed < limit do
      -- ZRANGE + ZREMRANGEBYRANK rather than ZPOPMIN, whose reply formats every score with printf
      local popped = redis.call('ZRANGE', avail, 0, limit - nclaimed - 1)
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
return { claimed, promoted, expired }
