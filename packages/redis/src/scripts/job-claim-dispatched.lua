--[[ job-claim-dispatched.lua: Driver.jobClaim with `dispatched` (a dispatch log's store, @ojskit/kafka). Hands up
to `limit` jobs the log delivered to one worker; no job ever goes to two claimers (the whole claim is one script).
KEYS: none. Touches only P:{q}:* keys of the queues named.
ARGV: (packed as one JSON array) P, limit, workerId, now, nowIso, visibilityMs|'' (per job @visibilityMs when empty),
  queue1, queue2, ...
Returns (as RESP), as job-claim.lua: {claimed, promoted, expired, held, historyOff}: claimed in job-claim.lua's flat
  form (lib/claim-fields.lua), promoted always empty, expired = HGETALL of each expired job; held = nil, or (rate
  limits held a job back) the ms until the soonest spacing that held one ends, 0 when only concurrency did;
  historyOff = nil, or the queues looked at that opt out of history.
Transitions, per queue in order, paused queues skipped, over the queue's dispatched index P:{q}:disp (jobs in the
dispatched state carrying @dispatchedAt, lib/indexes.lua), by priority then the order they were dispatched in (a
queue with an age boost by core's rank first, lib/age-boost.lua):
  dispatched -> discarded   (@expiresAt < now: DISPATCH_EFFECTS.expire)
  dispatched -> active      (DISPATCH_EFFECTS.claim: attempt + 1, started_at, worker_id, @claimVisibilityMs,
                             @visibleUntil, @timeoutAt; next_attempt_at, @progress and @dispatchedAt removed)
Nothing is promoted (the log decides what is delivered). Rate limits apply as in job-claim.lua
(lib/rate-limits.lua): a dispatched job the rule refuses stays dispatched, in place, and the claim goes on behind it
(at most RATE_LIMIT_SCAN jobs looked at per queue). An index entry whose job is gone or no longer dispatched is
dropped. Each transition appends its history line (lib/history.lua), unless its queue opts out. ]]

--!include lib/queue-basics.lua
--!include lib/history.lua

local A = cjson.decode(ARGV[1])
local limit, worker, now, nowIso, vis = tonumber(A[2]), A[3], tonumber(A[4]), A[5], A[6]
local claimed, expired = {}, {}
local nclaimed = 0
-- the '@h' of the job last appended to `claimed`
local lastPacked = false

-- What lib/claim-fields.lua writes: a claim takes dispatched jobs and removes their dispatch marker.
local CLAIM_FROM, CLAIM_TRIGGER, CLAIM_DROP = DISPATCHED, DISPATCH_TRIGGER.claim, '@dispatchedAt'
--!include lib/claim-fields.lua

-- One queue without limits or age boost, and the first `limit` jobs of its dispatched index all dispatched and
-- none expiring or rate-limited: job-claim.lua's short way (lib/claim-fields.lua), before the libraries below are
-- set up (their definitions cost each call ~100k Redis instructions) and without their generic per-job view,
-- writes and HGETALL reply (~5x this per job, measured with SLOWLOG). Nothing is written before the claim knows
-- it can finish here; otherwise the general claim below runs. The job is in the dispatched state's own index
-- (P:{q}:st:<state>, lib/indexes.lua index_name; script-source.ts refuses to build otherwise) and P:{q}:disp.
if #A == 7 then
  local base = queue_base(A[1], A[7])
  local disp = base .. 'disp'
  local popped = redis.call('ZRANGE', disp, 0, limit - 1)
  if #popped == 0 then return { {}, {}, {} } end
  local meta = redis.call('HMGET', base .. 'meta', 'paused', 'rl_ivl', 'rl_conc', 'age_ms', 'hist_off')
  if meta[1] == '1' then return { {}, {}, {} } end
  HIST_ON[base] = not meta[5]
  if not meta[2] and not meta[3] and not meta[4] then
    local jks, hs, general = {}, {}, false
    local fromPrefix = CLAIM_FROM .. '|'
    for k = 1, #popped do
      local jk = base .. 'j:' .. popped[k]
      local h = redis.call('HGETALL', jk)
      local marked, inState = false, false
      for f = 1, #h, 2 do
        local name = h[f]
        if name == '@expiresAt' or name == '@rateLimit' then general = true
        elseif name == CLAIM_DROP then marked = true
        elseif name == '@h' then inState = string.sub(h[f + 1], 1, #fromPrefix) == fromPrefix end
      end
      -- an expiring, rate-limited or stale entry (gone, moved on, not dispatched): the general claim
      if general or not marked or not inState then
        general = true
        break
      end
      jks[k], hs[k] = jk, h
    end
    if not general then
      redis.call('ZREMRANGEBYRANK', disp, 0, #popped - 1)
      redis.call('ZREM', base .. 'st:' .. CLAIM_FROM, unpack(popped))
      local scores = {}
      for k = 1, #popped do
        local h = hs[k]
        local hp, ep, own, at = scan(h)
        scores[#scores + 1] = claim_fields(base, popped[k], jks[k], h, hp, ep, own, at)
        scores[#scores + 1] = popped[k]
      end
      append_anchor(scores)
      for a = 1, #scores, 4000 do redis.call('ZADD', base .. STATE.claimed, unpack(scores, a, math.min(#scores, a + 3999))) end
      redis.call('HINCRBY', base .. 'counts', CLAIM_FROM, -nclaimed)
      redis.call('HINCRBY', base .. 'counts', STATE.claimed, nclaimed)
      return { claimed, {}, expired, false, meta[5] and { A[7] } or nil }
    end
  end
end

--!include lib/generated.lua
--!include lib/keys.lua
--!include lib/indexes.lua
--!include lib/age-boost.lua
--!include lib/rate-limits.lua

-- As job-claim.lua's: dispatched jobs behind more refused ones wait until those drain (spec/rate-limits.md).
local RATE_LIMIT_SCAN = 1000


-- What a claim reads of a job: its guards, what its old and new indexes need (lib/indexes.lua: a dispatched job
-- is in no expiry or unique index; active and terminal scores come from fields the move writes) and the two
-- durations its deadlines derive from. Each field read scans the job's hash, all of it when the field is absent.
local CLAIM_VIEW = { 'state', 'attempt', 'worker_id', 'priority', '@dispatchedAt', '@expiresAt', '@deadLetter', '@visibilityMs', '@timeoutMs', '@rateLimit' }

-- Moves one job (view `v`, split '@h' `hv`) by the writes `set`/`del`, keeping its indexes and history.
local function move(q, id, jk, v, hv, set, del, trigger)
  local from = v.state
  idx_remove(q, id, v)
  job_write(jk, set, del, hv)
  for k = 1, #set, 2 do v[set[k]] = set[k + 1] end
  for k = 1, #del do v[del[k]] = false end
  idx_add(q, id, jk, v, true)
  if HISTORY_ON then hist_push(qkey(q, ''), id, hist_line(nowIso, from, v.state, trigger, v.attempt or '0', v.worker_id)) end
  return redis.call('HGETALL', jk)
end

-- Claims or expires one dispatched job; false (and nothing written) when the rate limits refuse it.
local function claim_one(q, id, ql)
  local jk = jkey(q, id)
  local v, hv = read_view(q, id, jk, CLAIM_VIEW)
  if not v or v.state ~= DISPATCHED or not v['@dispatchedAt'] then
    -- a stale entry: every way out of the dispatched state leaves the index, so this is only a safety net
    redis.call('ZREM', qkey(q, 'disp'), id)
    return
  end
  local expiresAt = tonumber(v['@expiresAt'])
  if expiresAt and expiresAt < now then
    expired[#expired + 1] = move(q, id, jk, v, hv, { DISPATCH_SET.expire }, { DISPATCH_DEL.expire }, DISPATCH_TRIGGER.expire)
    return
  end
  local rl = v['@rateLimit'] and cjson.decode(v['@rateLimit'])
  if (rl or ql) and not rl_allows(q, rl or nil, ql) then return false end
  local cv = tonumber(vis) or tonumber(v['@visibilityMs']) or 0
  local set = { DISPATCH_STAMPS.claim, 'worker_id', worker, 'attempt', int((tonumber(v.attempt) or 0) + 1),
    '@claimVisibilityMs', int(cv), '@visibleUntil', int(now + cv) }
  local timeoutMs = tonumber(v['@timeoutMs'])
  if timeoutMs then
    set[#set + 1] = '@timeoutAt'
    set[#set + 1] = int(now + timeoutMs)
  end
  claimed_append(move(q, id, jk, v, hv, set, { DISPATCH_DEL.claim }, DISPATCH_TRIGGER.claim))
  nclaimed = nclaimed + 1
  if rl or ql then rl_claimed(q, id, rl or nil, ql) end
  return true
end

-- Index writes go out together (lib/indexes.lua idx_defer): a claim of hundreds of jobs then costs a handful of
-- ZREM/ZADD/HINCRBY calls, not several per job. Flushed before each read of an index.
idx_defer()
-- the queues looked at that opt out of history (see Returns)
local historyOff = {}
for qi = 7, #ARGS do
  if nclaimed >= limit then break end
  local q = ARGS[qi]
  local meta = redis.call('HMGET', qkey(q, 'meta'), 'paused', 'age_ms', 'hist_off')
  if meta[1] ~= '1' then
    if meta[3] then historyOff[#historyOff + 1] = q end
    local ageMs = tonumber(meta[2])
    local disp = qkey(q, 'disp')
    local ql = rl_queue_limit(q)
    -- every id looked at leaves the index (claimed, expired or stale) except those the rate limits refused,
    -- which stay ahead of `skip`
    local skip, scanned = 0, 0
    while nclaimed < limit and scanned < RATE_LIMIT_SCAN do
      idx_flush()
      local ids
      if ageMs then ids = aged_range(q, disp, skip, skip + limit - nclaimed - 1, ageMs, now)
      else ids = redis.call('ZRANGE', disp, skip, skip + limit - nclaimed - 1) end
      if #ids == 0 then break end
      scanned = scanned + #ids
      for _, id in ipairs(ids) do
        if claim_one(q, id, ql) == false then skip = skip + 1 end
      end
    end
  end
end

idx_flush()
return { claimed, {}, expired, RL_HELD, #historyOff > 0 and historyOff or nil }
