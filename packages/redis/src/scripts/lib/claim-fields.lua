--[[ lib/claim-fields.lua: a claim's writes to one job and its entry in the claim's reply, hand-tuned (callgrind,
2026-11-25), shared by job-claim.lua (available jobs) and job-claim-dispatched.lua (jobs a dispatch log delivered).
The including script declares, before the include: limit, worker, now, nowIso, vis (its arguments); claimed,
nclaimed, lastPacked (the reply being built); and CLAIM_FROM, CLAIM_TRIGGER, CLAIM_DROP: the state a claimed job
leaves, the trigger of its history line, and an internal field every claim removes (false when none).
Requires lib/queue-basics.lua and lib/history.lua. ]]

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
      line = hist_line(nowIso, CLAIM_FROM, STATE.claimed, CLAIM_TRIGGER, c[4], worker)
      c[3] = line
    end
    hist_append(base, id, line)
  end
  local dropNext, dropProgress = at.next_attempt_at, at['@progress']
  if dropNext or dropProgress or CLAIM_DROP then
    local dels = {}
    if CLAIM_DROP then dels[1] = CLAIM_DROP end
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

-- Appends job `h` (its HGETALL, as a claim left it) to `claimed` in the reply's form claim_fields uses, for a
-- claim that wrote the job another way (job-claim-dispatched.lua's general claim).
local function claimed_append(h)
  local hp, ep, own = scan(h)
  local c = #claimed
  claimed[c + 1] = h[hp]
  lastPacked = h[hp]
  claimed[c + 2] = ep and h[ep] or false
  claimed[c + 3] = 0
  local n = 0
  if own then
    for _, k in ipairs(own) do
      claimed[c + 4 + 2 * n] = h[k]
      claimed[c + 5 + 2 * n] = h[k + 1]
      n = n + 1
    end
  end
  claimed[c + 3] = n
end
