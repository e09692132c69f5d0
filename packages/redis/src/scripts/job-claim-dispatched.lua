--[[ job-claim-dispatched.lua: Driver.jobClaim with `dispatched` (a dispatch log's store, @ojskit/kafka). Hands up
to `limit` jobs the log delivered to one worker; no job ever goes to two claimers (the whole claim is one script).
KEYS: none. Touches only P:{q}:* keys of the queues named.
ARGV: P, limit, workerId, now, nowIso, visibilityMs|'' (per job @visibilityMs when empty), queue1, queue2, ...
Returns: {claimed, expired, held}: HGETALL of each claimed job (after the claim, in claim order) and of each expired
  one; held = nil, or (rate limits held a job back) the ms until the soonest spacing that held one ends, 0 when only
  concurrency did.
Transitions, per queue in order, paused queues skipped, over the queue's dispatched index P:{q}:disp (jobs in the
dispatched state carrying @dispatchedAt, lib/indexes.lua), by priority then the order they were dispatched in (a
queue with an age boost by core's rank first, lib/age-boost.lua):
  dispatched -> discarded   (@expiresAt < now: DISPATCH_EFFECTS.expire)
  dispatched -> active      (DISPATCH_EFFECTS.claim: attempt + 1, started_at, worker_id, @claimVisibilityMs,
                             @visibleUntil, @timeoutAt; next_attempt_at, @progress and @dispatchedAt removed)
Nothing is promoted (the log decides what is delivered). Rate limits apply as in job-claim.lua
(lib/rate-limits.lua): a dispatched job the rule refuses stays dispatched, in place, and the claim goes on behind it
(at most RATE_LIMIT_SCAN jobs looked at per queue). An index entry whose job is gone or no longer dispatched is
dropped. Each transition appends its history line (lib/history.lua). ]]

--!include lib/generated.lua
--!include lib/keys.lua
--!include lib/indexes.lua
--!include lib/age-boost.lua
--!include lib/rate-limits.lua

-- As job-claim.lua's: dispatched jobs behind more refused ones wait until those drain (spec/rate-limits.md).
local RATE_LIMIT_SCAN = 1000

local limit, worker, now, nowIso, vis = tonumber(ARGS[2]), ARGS[3], tonumber(ARGS[4]), ARGS[5], ARGS[6]
local claimed, expired = {}, {}
local nclaimed = 0

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
  claimed[#claimed + 1] = move(q, id, jk, v, hv, set, { DISPATCH_DEL.claim }, DISPATCH_TRIGGER.claim)
  nclaimed = nclaimed + 1
  if rl or ql then rl_claimed(q, id, rl or nil, ql) end
  return true
end

-- Index writes go out together (lib/indexes.lua idx_defer): a claim of hundreds of jobs then costs a handful of
-- ZREM/ZADD/HINCRBY calls, not several per job. Flushed before each read of an index.
idx_defer()
for qi = 7, #ARGS do
  if nclaimed >= limit then break end
  local q = ARGS[qi]
  local meta = redis.call('HMGET', qkey(q, 'meta'), 'paused', 'age_ms')
  if meta[1] ~= '1' then
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
return { claimed, expired, RL_HELD }
