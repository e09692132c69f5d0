--[[ lib/rate-limits.lua: core's rate-limit rule (rate-limit/rule.ts) as the claim script runs it.
Keys (lib/keys.lua conventions):
  P:{q}:meta      fields rl_ivl, rl_conc: the queue-level limit (queue-config-set.lua writes them)
  P:{q}:rl        hash: at (the queue's last limited claim, ms of the Redis clock), ivl (the spacing it kept)
  P:{q}:rlkeys    hash: concurrency key -> the limit the latest job claimed under it carried (for inspection)
  P:rlk:<key>     hash: id -> queue of each job claimed under the concurrency key
Time is the server's (TIME), never a client's: limits hold across gateways whose clocks disagree.
A key's count is derived from its members' states: a member whose '@h' no longer starts with the claimed state
(acked, failed, cancelled, rescued, expired) or that no longer exists does not count and is dropped when seen,
so no exit from active needs to release anything and nothing can leak (rl_key_active). ]]

local RL_CLAIMED = STATE.claimed .. '|'
local RL_NOW = false
local RL_WINDOW = {}
local RL_KEYS = {}
-- keys whose RL_KEYS count was checked holder by holder (else it is an upper bound)
local RL_EXACT = {}
local RL_QACTIVE = {}
local RL_LIMITS = {}
-- false, or the claim's `held` hint: ms until the soonest spacing that held a job ends (0: concurrency only)
local RL_HELD = false
-- the keys this call noted in P:{q}:rlkeys, by queue and key
local RL_NOTED = {}

-- The Redis clock in ms, read once per call.
local function rl_now()
  if not RL_NOW then
    local t = redis.call('TIME')
    RL_NOW = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
  end
  return RL_NOW
end

-- The queue-level limit of `q`: { ivl = ms|nil, conc = n|nil }, or false when it has none.
local function rl_queue_limit(q)
  local l = RL_LIMITS[q]
  if l == nil then
    local m = redis.call('HMGET', qkey(q, 'meta'), 'rl_ivl', 'rl_conc')
    if m[1] or m[2] then l = { ivl = tonumber(m[1]), conc = tonumber(m[2]) } else l = false end
    RL_LIMITS[q] = l
  end
  return l
end

-- The job's own limit (its '@rateLimit', decoded) from its HGETALL `h`, or nil.
local function rl_job_limit(h)
  for k = 1, #h, 2 do
    if h[k] == '@rateLimit' then return cjson.decode(h[k + 1]) end
  end
  return nil
end

local function rl_key(key)
  return P .. ':rlk:' .. key
end

local function rl_holding(id, q)
  local hot = redis.call('HGET', jkey(q, id), '@h')
  return hot and string.sub(hot, 1, #RL_CLAIMED) == RL_CLAIMED
end

-- Active jobs holding `key`, as far as a limit of `limit` needs to know: the holders counted as they are
-- (an upper bound, as some may have left active) while fewer than `limit`, else each checked against its
-- job's state (see the header). Two random holders are checked on every read, so holders of finished jobs
-- do not pile up under a limit never reached (about two holders per active job in the steady state).
local function rl_key_active(key, limit)
  local n = RL_KEYS[key]
  if n then return n end
  local hk = rl_key(key)
  n = redis.call('HLEN', hk)
  local gone = {}
  RL_EXACT[key] = n >= limit
  if n >= limit then
    local all = redis.call('HGETALL', hk)
    n = 0
    for i = 1, #all, 2 do
      if rl_holding(all[i], all[i + 1]) then n = n + 1 else gone[#gone + 1] = all[i] end
    end
  elseif n > 0 then
    local sample = redis.call('HRANDFIELD', hk, 2, 'WITHVALUES')
    for i = 1, #sample, 2 do
      if not rl_holding(sample[i], sample[i + 1]) then
        gone[#gone + 1] = sample[i]
        n = n - 1
      end
    end
  end
  if #gone > 0 then redis.call('HDEL', hk, unpack(gone)) end
  RL_KEYS[key] = n
  return n
end

-- Active jobs of queue `q`, counting this call's claims (the counts hash is written at the end of the call).
local function rl_queue_active(q)
  local n = RL_QACTIVE[q]
  if not n then
    n = tonumber(redis.call('HGET', qkey(q, 'counts'), STATE.claimed)) or 0
    RL_QACTIVE[q] = n
  end
  return n
end

local function rl_interval(job, ql)
  local a = job and job.intervalMs or 0
  local b = ql and ql.ivl or 0
  if a > b then return a end
  return b
end

-- The last limited claim from `q` (ms) or false.
local function rl_last(q)
  local w = RL_WINDOW[q]
  if w == nil then
    w = tonumber(redis.call('HGET', qkey(q, 'rl'), 'at')) or false
    RL_WINDOW[q] = w
  end
  return w
end

local function rl_hold(wait)
  if not RL_HELD or (wait > 0 and (RL_HELD == 0 or wait < RL_HELD)) then RL_HELD = wait end
  return false
end

-- Whether the rule lets this call claim a job of `q` with limit `job` (nil: none) under queue limit `ql`;
-- each refusal is noted in RL_HELD.
local function rl_allows(q, job, ql)
  local ivl = rl_interval(job, ql)
  if ivl > 0 then
    local last = rl_last(q)
    if last and rl_now() - last < ivl then return rl_hold(math.ceil(last + ivl - rl_now())) end
  end
  if job and job.concurrency and rl_key_active(job.key, job.concurrency) >= job.concurrency then
    -- an upper bound at the limit (holders of finished jobs, or this call's claims on top of one): count exactly
    if RL_EXACT[job.key] then return rl_hold(0) end
    RL_KEYS[job.key] = nil
    if rl_key_active(job.key, 0) >= job.concurrency then return rl_hold(0) end
  end
  if ql and ql.conc and rl_queue_active(q) >= ql.conc then return rl_hold(0) end
  return true
end

-- Records the claim of job `id` of `q` that rl_allows passed.
local function rl_claimed(q, id, job, ql)
  local ivl = rl_interval(job, ql)
  if ivl > 0 then
    RL_WINDOW[q] = rl_now()
    redis.call('HSET', qkey(q, 'rl'), 'at', string.format('%.3f', rl_now()), 'ivl', tostring(ivl))
  end
  if job and job.key then
    local n = rl_key_active(job.key, job.concurrency)
    redis.call('HSET', rl_key(job.key), id, q)
    RL_KEYS[job.key] = n + 1
    local noted = q .. '\0' .. job.key
    if not RL_NOTED[noted] then
      RL_NOTED[noted] = true
      redis.call('HSET', qkey(q, 'rlkeys'), job.key, tostring(job.concurrency))
    end
  end
  if RL_QACTIVE[q] then RL_QACTIVE[q] = RL_QACTIVE[q] + 1 end
end
