--[[ lib/indexes.lua: the index rules of the driver contract, in one place.
Every state change is idx_remove(old state) -> write fields -> idx_add(new state). Requires lib/keys.lua and
the generated state tables (STATES, TERMINAL, DUE, EXPIRABLE). ]]

-- 2^40: FIFO sequences stay below it, priorities in [-100, 100] keep scores below 2^53 (exact doubles).
local SEQ_SPAN = 1099511627776

local function avail_score(priority, seq)
  return (100 - priority) * SEQ_SPAN + seq
end

local function idx_remove(q, id, state)
  redis.call('ZREM', qkey(q, 's:' .. state), id)
  if state == 'available' then
    redis.call('ZREM', qkey(q, 'avail'), id)
  elseif DUE[state] then
    redis.call('ZREM', qkey(q, 'due'), id)
  elseif state == 'active' then
    redis.call('ZREM', qkey(q, 'active'), id)
  elseif TERMINAL[state] then
    redis.call('ZREM', qkey(q, 'fin'), id)
    redis.call('ZREM', qkey(q, 'dl'), id)
  end
  if EXPIRABLE[state] then
    redis.call('ZREM', qkey(q, 'exp'), id)
  end
end

-- fresh: the job has just entered `state` (entering `available` takes a new FIFO sequence).
local function idx_add(q, id, jk, state, fresh)
  redis.call('ZADD', qkey(q, 's:' .. state), 0, id)
  if state == 'available' then
    local f = redis.call('HMGET', jk, 'priority', '@seq')
    local seq = tonumber(f[2])
    if fresh or not seq then
      seq = redis.call('INCR', qkey(q, 'seq'))
      redis.call('HSET', jk, '@seq', seq)
    end
    redis.call('ZADD', qkey(q, 'avail'), avail_score(tonumber(f[1]) or 0, seq), id)
  elseif DUE[state] then
    redis.call('ZADD', qkey(q, 'due'), tonumber(redis.call('HGET', jk, '@dueAt')) or 0, id)
  elseif state == 'active' then
    local f = redis.call('HMGET', jk, '@visibleUntil', '@timeoutAt')
    local a, b = tonumber(f[1]), tonumber(f[2])
    local score = a or b
    if a and b and b < a then score = b end
    redis.call('ZADD', qkey(q, 'active'), score or '+inf', id)
  elseif TERMINAL[state] then
    local f = redis.call('HMGET', jk, '@finishedAt', '@deadLetter')
    local set = 'fin'
    if state == 'discarded' and f[2] == '1' then set = 'dl' end
    redis.call('ZADD', qkey(q, set), tonumber(f[1]) or 0, id)
  end
  if EXPIRABLE[state] then
    local e = tonumber(redis.call('HGET', jk, '@expiresAt'))
    if e then redis.call('ZADD', qkey(q, 'exp'), e, id) end
  end
end

-- The fields a JobSummary is built from, in this order.
local function summary(jk)
  return redis.call('HMGET', jk, 'id', 'type', 'queue', 'state', 'attempt', 'workflow_id')
end

-- Resolves a job id to its queue and hash key; nil when unknown.
local function locate(id)
  local q = redis.call('HGET', IDS, id)
  if not q then return nil end
  local jk = jkey(q, id)
  if redis.call('EXISTS', jk) == 0 then return nil end
  return q, jk
end

-- Registers a queue (idempotent): the queue record is created at first sight.
local function queue_register(q, nowIso)
  if redis.call('SADD', QUEUES, q) == 1 then
    redis.call('HSETNX', qkey(q, 'meta'), 'name', q)
    redis.call('HSETNX', qkey(q, 'meta'), 'created_at', nowIso)
    redis.call('HSETNX', qkey(q, 'meta'), 'paused', '0')
  end
end

-- Removes a job and every trace of it (indexes, directory, unique membership).
local function job_remove(q, id, jk)
  local f = redis.call('HMGET', jk, 'state', '@uniqueKey')
  if f[1] then idx_remove(q, id, f[1]) end
  if f[2] then redis.call('SREM', ukey(f[2]), id) end
  redis.call('DEL', jk)
  redis.call('HDEL', IDS, id)
end
