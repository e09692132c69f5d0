--[[ job-claim.lua: Driver.jobClaim. Hands up to `limit` jobs to one worker; no job ever goes to two claimers.
KEYS: none. Touches only P:{q}:* keys of the queues named (one queue: one hash slot; several queues span
      them, see README).
ARGV: (packed as one JSON array) P, limit, workerId, now, nowIso, visibilityMs|'' (per job @visibilityMs when empty), queue1, queue2, ...
Returns (as RESP): {claimed, promoted, expired, held, historyOff}: held = nil, or (rate limits held a job back) the ms until the
  soonest spacing that held one ends, 0 when only concurrency did; historyOff = nil, or the names of the queues
  looked at that opt out of history (P:{q}:meta hist_off), so the caller sends no history line with their ACKs; claimed = one flat list, per claimed job in claim order (as it is
  after the claim): '@h' (0 when it equals the previous job's), '@e' (nil when absent), n, then the n name/value
  pairs of its other envelope fields
  (fields named '@…' other than those two are internal and left out); promoted = summaries (id, type, queue,
  state, attempt, workflow_id, from-state); expired = HGETALL of each expired job.
  Why flat: RESP-encoding a reply costs ~700 Redis instructions a string and ~1.7k a nested table, so a fresh
  job's HGETALL (6 strings, one table) cost ~9k instructions to send; its two values and a count cost ~2k.
Rate limits (lib/rate-limits.lua, core's rate-limit/rule.ts): a job the rule refuses stays available in place and
  the claim goes on behind it (at most RATE_LIMIT_SCAN jobs looked at per queue); timed by the server's TIME.
Transitions, per queue in order, paused queues skipped:
  scheduled|retryable -> available   (@dueAt <= now, up to PROMOTE_BATCH per queue per claim)
  scheduled|retryable|available -> discarded   (@expiresAt < now: discarded_at = expired_at = nowIso)
  available -> active   (attempt + 1, started_at, worker_id, @claimVisibilityMs, @visibleUntil, @timeoutAt;
                         next_attempt_at and @progress removed)
Order: priority then FIFO (the avail score); a queue with an age boost (P:{q}:meta age_ms) by core's
  ageBoostRank over each job's enqueued_at, see lib/age-boost.lua.
Each transition appends its history line (lib/history.lua), unless its queue opts out (P:{q}:meta hist_off). ]]

--!include lib/queue-basics.lua
--!include lib/history.lua

local A = cjson.decode(ARGV[1])
local PROMOTE_BATCH = 1000
local limit, worker, now, nowIso, vis = tonumber(A[2]), A[3], tonumber(A[4]), A[5], A[6]
local claimed, promoted, expired = {}, {}, {}
local nclaimed = 0
-- the '@h' of the job last appended to `claimed`
local lastPacked = false

-- What lib/claim-fields.lua writes: a claim takes available jobs.
local CLAIM_FROM, CLAIM_TRIGGER, CLAIM_DROP = STATE.claimable, TRIGGER.claim, false
--!include lib/claim-fields.lua

-- One queue, nothing due in it, and no job among the first `limit` available that carries an expiry: the
-- usual claim, done here before the libraries below are set up. Defining their functions and tables costs
-- each call ~100k Redis instructions (callgrind, 2026-11-25: a claim of one job 372k), the larger part of an
-- idle worker's claim, which sits between an enqueue and the start of its job. Nothing is written before the
-- claim knows it can finish here; otherwise the general claim below runs.
if #A == 7 then
  local base = queue_base(A[1], A[7])
  local avail = base .. 'avail'
  -- ZRANGE + ZREMRANGEBYRANK rather than ZPOPMIN, whose reply formats every score with printf
  local popped = redis.call('ZRANGE', avail, 0, limit - 1)
  local due = #redis.call('ZRANGEBYSCORE', base .. 'due', '-inf', now, 'LIMIT', 0, 1) > 0
  -- the usual answer to an idle worker's long-poll: nothing to promote, expire or hand out
  if #popped == 0 and not due then return { {}, {}, {} } end
  local meta = not due and redis.call('HMGET', base .. 'meta', 'paused', 'rl_ivl', 'rl_conc', 'age_ms', 'hist_off')
  if meta and meta[1] == '1' then return { {}, {}, {} } end
  -- the history opt-out, read with the rest of the meta (hist_on would read it again)
  if meta then HIST_ON[base] = not meta[5] end
  -- a queue with a limit of its own (lib/rate-limits.lua) or an age boost (lib/age-boost.lua) takes the
  -- general claim below
  if meta and not meta[2] and not meta[3] and not meta[4] then
    -- each job's key and hash, read before anything is written (scanned again below: cheaper than keeping
    -- a table of what a scan found per job)
    local jks, hs, expiring = {}, {}, false
    for k = 1, #popped do
      local jk = base .. 'j:' .. popped[k]
      local h = redis.call('HGETALL', jk)
      for f = 1, #h, 2 do
        -- an expiring or rate-limited job: the general claim below handles it
        if h[f] == '@expiresAt' or h[f] == '@rateLimit' then expiring = true end
      end
      if expiring then break end
      jks[k], hs[k] = jk, h
    end
    if not expiring then
      redis.call('ZREMRANGEBYRANK', avail, 0, #popped - 1)
      local scores = {}
      for k = 1, #popped do
        local h = hs[k]
        local hp, ep, own, at = scan(h)
        -- a job without a hash (or without '@h') leaves the index and is not handed out, as below
        if hp then
          scores[#scores + 1] = claim_fields(base, popped[k], jks[k], h, hp, ep, own, at)
          scores[#scores + 1] = popped[k]
        end
      end
      if #scores > 0 then
        append_anchor(scores)
        for a = 1, #scores, 4000 do redis.call('ZADD', base .. STATE.claimed, unpack(scores, a, math.min(#scores, a + 3999))) end
      end
      if nclaimed > 0 then
        redis.call('HINCRBY', base .. 'counts', STATE.claimable, -nclaimed)
        redis.call('HINCRBY', base .. 'counts', STATE.claimed, nclaimed)
      end
      return { claimed, promoted, expired, false, meta[5] and { A[7] } or nil }
    end
  end
elseif #A > 7 then
  -- several queues: answers an idle long-poll before the libraries below are set up (see above)
  local idle = true
  for qi = 7, #A do
    local base = queue_base(A[1], A[qi])
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
--!include lib/rate-limits.lua
--!include lib/age-boost.lua

-- How many available jobs of one queue a claim looks at for ones the rate limits allow: jobs behind more
-- refused ones wait until those drain (spec/rate-limits.md).
local RATE_LIMIT_SCAN = 1000

-- Claims one available job whose hash is `h` (HGETALL, already popped from the available index); appends it
-- to `claimed` as it is afterwards (see Returns).
local function claim_one(q, id, jk, h, counts, active)
  local hp, ep, own, at = scan(h)
  if not hp then return end
  local p = at['@expiresAt']
  local expiresAt = p and tonumber(h[p])
  if expiresAt and expiresAt < now then
    p = at['@deadLetter']
    local v = { state = STATE.claimable, ['@expiresAt'] = h[at['@expiresAt']], ['@finishedAt'] = false, ['@deadLetter'] = p and h[p] or false }
    -- already out of the available index: only the count and the expiry index are left
    incr(counts, STATE.claimable, -1)
    redis.call('ZREM', qkey(q, 'exp'), id)
    local set, del = { EFFECT_SET.expire }, { EFFECT_DEL.expire }
    local hv = hot_split(h[hp])
    if HISTORY_ON then
      hist_push(qkey(q, ''), id, hist_line(nowIso, STATE.claimable, STATE.expired, TRIGGER.expire, hv[HOT_AT.attempt], hv[HOT_AT.worker_id]))
    end
    job_write(jk, set, del, hv)
    -- the view learns the writes inline (view_apply would cost every call of the script its closure)
    for k = 1, #set, 2 do v[set[k]] = set[k + 1] end
    for k = 1, #del do v[del[k]] = false end
    idx_add(q, id, jk, v, true)
    expired[#expired + 1] = redis.call('HGETALL', jk)
    return
  end
  local score = claim_fields(qkey(q, ''), id, jk, h, hp, ep, own, at)
  if expiresAt then redis.call('ZREM', qkey(q, 'exp'), id) end
  incr(counts, STATE.claimable, -1)
  incr(counts, STATE.claimed, 1)
  zadd(active, score, id)
end

idx_defer()
-- the queues looked at that opt out of history (see Returns)
local historyOff = {}
for qi = 7, #ARGS do
  if nclaimed >= limit then break end
  local q = ARGS[qi]
  local meta = redis.call('HMGET', qkey(q, 'meta'), 'paused', 'age_ms', 'hist_off')
  if meta[1] ~= '1' then
    HIST_ON[qkey(q, '')] = not meta[3]
    if meta[3] then historyOff[#historyOff + 1] = q end
    local ageMs = tonumber(meta[2])
    promote_due(q, now, nowIso, PROMOTE_BATCH, promoted, expired)
    -- the pops below must see the jobs promoted just now
    idx_flush()
    local avail, counts, active = qkey(q, 'avail'), qkey(q, 'counts'), qkey(q, STATE.claimed)
    local ql = rl_queue_limit(q)
    -- jobs the rate limits refused stay in the index, ahead of `skip`
    local skip, scanned = 0, 0
    while nclaimed < limit and scanned < RATE_LIMIT_SCAN do
      local popped
      if ageMs then popped = aged_range(q, avail, skip, skip + limit - nclaimed - 1, ageMs, now)
      else popped = redis.call('ZRANGE', avail, skip, skip + limit - nclaimed - 1) end
      if #popped == 0 then break end
      scanned = scanned + #popped
      local taken = {}
      for k = 1, #popped do
        local id = popped[k]
        local jk = jkey(q, id)
        local h = redis.call('HGETALL', jk)
        local rl = #h > 0 and rl_job_limit(h)
        if rl or ql then
          if rl_allows(q, rl or nil, ql) then
            taken[#taken + 1] = id
            local before = nclaimed
            claim_one(q, id, jk, h, counts, active)
            if nclaimed > before then rl_claimed(q, id, rl or nil, ql) end
          else
            skip = skip + 1
          end
        else
          taken[#taken + 1] = id
          if #h > 0 then claim_one(q, id, jk, h, counts, active) end
        end
      end
      if #taken > 0 then redis.call('ZREM', avail, unpack(taken)) end
    end
  end
end

idx_flush()
return { claimed, promoted, expired, RL_HELD, #historyOff > 0 and historyOff or nil }
