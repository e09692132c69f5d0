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

-- An integer as exact decimal text (tostring and cjson keep only 14 significant digits).
local function decimal(n)
  return string.format('%d', n)
end

-- The fields of its own a claim reads or removes (the rest it needs is packed in '@h').
local OWN_FIELDS = { ['@expiresAt'] = true, ['@deadLetter'] = true, next_attempt_at = true, ['@progress'] = true }
-- A claim reads an available job's '@h' through one pattern capturing only what it keeps or needs, in the
-- order of HOT_FIELDS (codec.ts; script-source.ts refuses to build this script if that order changes):
-- attempt; type|priority|enqueued_at (kept as one piece); completed_at; @visibilityMs; @timeoutMs;
-- @finishedAt. It writes the rest (state, started_at, @claimVisibilityMs, @visibleUntil, @timeoutAt,
-- worker_id) and joins the new '@h' in one concatenation. Splitting all 14 fields into a table and joining
-- them again cost ~9k Redis instructions a job more (callgrind, 2026-11-25): each capture is a new Lua
-- string, hashed and interned.
local CLAIM_READ = '^[^|]*|([^|]*)|([^|]*|[^|]*|[^|]*)|[^|]*|([^|]*)|([^|]*)|([^|]*)|[^|]*|[^|]*|[^|]*|([^|]*)|'

-- The claim's numbers as exact decimal text (cjson would round numbers to 14 digits), memoized per call by
-- the stored text they derive from: the jobs of a batch mostly share them, and formatting a number (printf)
-- costs more than the rest of a job's claim.
-- `hot`: what a claim makes of an '@h' it read ({'@h' written, score}), by that '@h': jobs enqueued together
-- (same instant, type, priority and deadlines) share one, and Lua keeps equal strings as one, so a batch of
-- them is matched, formatted and joined once (callgrind: the pattern match alone ~7k instructions a job).
local memo = { vis = {}, timeout = {}, attempt = {}, hot = {} }

-- {claimVisibilityMs text, visibleUntil, visibleUntil text} for a job whose @visibilityMs is `stored`.
local function visibility(stored)
  local e = memo.vis[stored]
  if not e then
    local cv = tonumber(vis) or tonumber(stored) or 0
    e = { decimal(cv), now + cv, decimal(now + cv) }
    memo.vis[stored] = e
  end
  return e
end

-- {timeoutAt, timeoutAt text} for a job whose @timeoutMs is `stored`; false when it is not a number.
local function timeout(stored)
  local e = memo.timeout[stored]
  if e == nil then
    local ms = tonumber(stored)
    e = ms and { now + ms, decimal(now + ms) } or false
    memo.timeout[stored] = e
  end
  return e
end

-- The attempt text after a claim, for a job whose attempt is `stored`.
local function next_attempt(stored)
  local e = memo.attempt[stored]
  if not e then
    e = decimal((tonumber(stored) or 0) + 1)
    memo.attempt[stored] = e
  end
  return e
end

-- One pass over a job's HGETALL `h`: where '@h' and '@e' are, the envelope fields of their own (positions of
-- their names), and where the internal fields a claim reads or removes are (OWN_FIELDS, by name).
-- `at` is NO_FIELDS, shared and never written, for a job with none of them (a fresh job): a table per job is
-- an allocation and a collection.
local NO_FIELDS = {}
local function scan(h)
  local at, hp, ep, own = NO_FIELDS, nil, nil, nil
  for k = 1, #h, 2 do
    local f = h[k]
    if f == '@h' then hp = k + 1
    elseif f == '@e' then ep = k + 1
    elseif f ~= '@seq' then -- stored by versions before 2026-11-26
      if OWN_FIELDS[f] then
        if at == NO_FIELDS then at = {} end
        at[f] = k + 1
      end
      if string.byte(f) ~= 64 then
        own = own or {}
        own[#own + 1] = k
      end
    end
  end
  return hp, ep, own, at
end

-- Claims job `id` (of the queue whose key base is `base`), whose hash `h` was scanned and which does not
-- expire now: writes its '@h' (HSET) and its history line, drops
-- next_attempt_at and @progress, and appends it to `claimed` as it is afterwards (see Returns), built
-- without reading it again. Returns its score in the active index.
local function claim_fields(base, id, jk, h, hp, ep, own, at)
  local old = h[hp]
  local c = memo.hot[old]
  if not c then
    local att, kept, completed, visMs, timeoutMs, finished = string.match(old, CLAIM_READ)
    if not att then error('job-claim.lua: ' .. jk .. ' holds a malformed @h') end
    local cv = visibility(visMs)
    local to = timeout(timeoutMs)
    local score, timeoutAt = cv[3], ''
    if to then
      if to[1] < cv[2] then score = to[2] end
      timeoutAt = to[2]
    end
    -- c[3], the history line, is made by the first job of a queue that records history (below)
    c = { STATE.claimed .. '|' .. next_attempt(att) .. '|' .. kept .. '|' .. nowIso .. '|' .. completed .. '|' .. visMs .. '|'
      .. timeoutMs .. '|' .. cv[1] .. '|' .. cv[3] .. '|' .. timeoutAt .. '|' .. finished .. '|' .. worker, score, false, next_attempt(att) }
    memo.hot[old] = c
  end
  local packed, score = c[1], c[2]
  redis.call('HSET', jk, '@h', packed)
  -- the queue's opt-out was read with its meta (HIST_ON seeded below): a lookup, not a call, per job
  if HISTORY_ON and (HIST_ON[base] or (HIST_ON[base] == nil and hist_on(base))) then
    local line = c[3]
    if not line then
      line = hist_line(nowIso, STATE.claimable, STATE.claimed, TRIGGER.claim, c[4], worker)
      c[3] = line
    end
    hist_append(base, id, line)
  end
  local dropNext, dropProgress = at.next_attempt_at, at['@progress']
  if dropNext or dropProgress then
    local dels = {}
    if dropNext then dels[#dels + 1] = 'next_attempt_at' end
    if dropProgress then dels[#dels + 1] = '@progress' end
    redis.call('HDEL', jk, unpack(dels))
  end
  -- the reply: '@h' as rewritten, '@e', and the envelope fields of their own but the one removed
  local c = #claimed
  -- 0: the same '@h' as the job before (jobs claimed together mostly share one), not sent again
  claimed[c + 1] = packed == lastPacked and 0 or packed
  lastPacked = packed
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
  return score
end

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
