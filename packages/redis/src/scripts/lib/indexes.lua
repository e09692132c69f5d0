--[[ lib/indexes.lua: the index rules of the driver contract, in one place.
A job's "view" is the handful of fields its indexes derive from, read with one HMGET (read_view). Every
state change is idx_remove(old view) -> write fields -> idx_add(new view). Requires lib/keys.lua and the
generated state tables (TERMINAL, DUE, EXPIRABLE). ]]

-- 2^40: FIFO sequences stay below it, priorities in [-100, 100] keep scores below 2^53 (exact doubles).
local SEQ_SPAN = 1099511627776

local VIEW = { 'state', 'priority', '@seq', '@dueAt', '@visibleUntil', '@timeoutAt', '@finishedAt', '@deadLetter',
  '@expiresAt', '@uniqueKey', 'attempt', 'worker_id', 'type', 'queue', 'workflow_id', 'id' }

-- The view of a job (missing fields are false), or nil when the hash does not exist.
local function read_view(jk)
  local r = redis.call('HMGET', jk, unpack(VIEW))
  if not r[1] then return nil end
  local v = {}
  for i, f in ipairs(VIEW) do v[f] = r[i] end
  return v
end

-- Applies field writes (flat field/value list from index a to b) and removals to a view.
local function view_apply(v, set, a, b, del, c, d)
  for k = a, b, 2 do
    if v[set[k]] ~= nil then v[set[k]] = set[k + 1] end
  end
  for k = c, d do
    if v[del[k]] ~= nil then v[del[k]] = false end
  end
end

local function avail_score(priority, seq)
  return (100 - priority) * SEQ_SPAN + seq
end

-- The suffix of the index holding jobs in `state` (dead-lettered discarded jobs have their own).
local function index_name(state, deadLetter)
  if state == 'available' then return 'avail' end
  if DUE[state] then return 'due' end
  if state == 'active' then return 'active' end
  if TERMINAL[state] then
    if state == 'discarded' and deadLetter then return 'dl' end
    return 'fin'
  end
  return 'st:' .. state
end

local function state_index(q, state, v)
  return qkey(q, index_name(state, v['@deadLetter'] == '1'))
end

local function idx_remove(q, id, v)
  local state = v.state
  redis.call('HINCRBY', qkey(q, 'counts'), state, -1)
  redis.call('ZREM', state_index(q, state, v), id)
  if EXPIRABLE[state] and v['@expiresAt'] then redis.call('ZREM', qkey(q, 'exp'), id) end
end

local function active_score(v)
  local a, b = tonumber(v['@visibleUntil']), tonumber(v['@timeoutAt'])
  local score = a or b
  if a and b and b < a then score = b end
  return score or '+inf'
end

-- fresh: the job has just entered its state (entering `available` takes a new FIFO sequence).
local function idx_add(q, id, jk, v, fresh)
  local state = v.state
  redis.call('HINCRBY', qkey(q, 'counts'), state, 1)
  local score = 0
  if state == 'available' then
    local seq = tonumber(v['@seq'])
    if fresh or not seq then
      seq = redis.call('INCR', qkey(q, 'seq'))
      redis.call('HSET', jk, '@seq', seq)
      v['@seq'] = seq
    end
    score = avail_score(tonumber(v.priority) or 0, seq)
  elseif DUE[state] then
    score = tonumber(v['@dueAt']) or 0
  elseif state == 'active' then
    score = active_score(v)
  elseif TERMINAL[state] then
    score = tonumber(v['@finishedAt']) or 0
  end
  redis.call('ZADD', state_index(q, state, v), score, id)
  if EXPIRABLE[state] and v['@expiresAt'] then redis.call('ZADD', qkey(q, 'exp'), tonumber(v['@expiresAt']), id) end
end

-- The summary fields (id, type, queue, state, attempt, workflow_id) of a view.
local function view_summary(v)
  return { v.id, v.type, v.queue, v.state, v.attempt, v.workflow_id }
end

-- Resolves a job id to its queue and hash key; nil when unknown.
local function locate(id)
  local q = redis.call('HGET', IDS, id)
  if not q then return nil end
  return q, jkey(q, id)
end

-- Registers a queue (idempotent): the queue record is created at first sight.
local function queue_register(q, nowIso)
  if redis.call('SADD', QUEUES, q) == 1 then
    redis.call('HSETNX', qkey(q, 'meta'), 'name', q)
    redis.call('HSETNX', qkey(q, 'meta'), 'created_at', nowIso)
    redis.call('HSETNX', qkey(q, 'meta'), 'paused', '0')
  end
end

-- Removes a job and every trace of it (indexes, counts, directory, unique membership).
local function job_remove(q, id, jk)
  local v = read_view(jk)
  if v then
    idx_remove(q, id, v)
    if v['@uniqueKey'] then redis.call('SREM', ukey(v['@uniqueKey']), id) end
    redis.call('DEL', jk)
  end
  redis.call('HDEL', IDS, id)
end
