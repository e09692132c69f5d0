--[[ lib/indexes.lua: the index rules of the driver contract, in one place.
A job's "view" is the handful of fields its indexes derive from, read with one HMGET (read_view). Every
state change is idx_remove(old view) -> write fields -> idx_add(new view). Requires lib/keys.lua and the
generated state tables (TERMINAL, DUE, EXPIRABLE). ]]
--!include lib/hot.lua
--!include lib/queue-basics.lua
--!include lib/history.lua


-- id and queue are not read: the caller knows them (a job's hash sits under the queue named in it). Every
-- field read costs a scan of the hash's listpack, a whole one when the field is absent.
local VIEW = { 'state', 'priority', '@dueAt', '@visibleUntil', '@timeoutAt', '@finishedAt', '@deadLetter',
  '@expiresAt', '@uniqueKey', 'attempt', 'worker_id', 'type', 'workflow_id' }
-- a dispatch log's store: whether a job is in the dispatched index (see idx_add)
if DISPATCH_ON then VIEW[#VIEW + 1] = '@dispatchedAt' end

-- The view of job `id` of queue `q` (missing fields are false) and its split '@h' (for job_write), or nil
-- when the hash does not exist. `fields` narrows it to what the caller needs (default VIEW).
local function read_view(q, id, jk, fields)
  local v, hv = job_read(jk, fields or VIEW)
  if not v then return nil end
  v.id = id
  v.queue = q
  return v, hv
end

-- Applies field writes (flat field/value list from index a to b) and removals to a view (fields outside
-- the view included: a narrowed view learns the new values it did not read).
local function view_apply(v, set, a, b, del, c, d)
  for k = a, b, 2 do v[set[k]] = set[k + 1] end
  for k = c, d do v[del[k]] = false end
end

-- The suffix of the index holding jobs in `state` (dead-lettered discarded jobs have their own).
local function index_name(state, deadLetter)
  if state == STATE.claimable then return 'avail' end
  if DUE[state] then return 'due' end
  if state == STATE.claimed then return STATE.claimed end
  if TERMINAL[state] then
    if state == STATE.deadLetter and deadLetter then return 'dl' end
    return 'fin'
  end
  return 'st:' .. state
end

local function state_index(q, state, v)
  return qkey(q, index_name(state, v['@deadLetter'] == '1'))
end

-- Index writes are applied at once, or, after idx_defer(), collected and applied by idx_flush() in one
-- command per key (a batch of 50 claims or acks then costs a handful of ZADD/ZREM/HINCRBY calls, not 200).
-- Safe because a deferring script reads no index or count until it flushes, and a job's pending writes are
-- flushed before that job's indexes are touched again (per key, removals are applied before additions).
local PENDING = nil

-- Appends the anchor (lib/queue-basics.lua) to ZADD arguments for an active index.
local function anchor(key, items)
  if ANCHORED[key] then append_anchor(items) end
  return items
end

local function idx_defer()
  PENDING = { ids = {}, keys = {}, zrem = {}, zadd = {}, incr = {} }
end

local function pending_list(map, key)
  local list = map[key]
  if not list then
    list = {}
    map[key] = list
    local keys = PENDING.keys
    if not keys[key] then
      keys[key] = true
      keys[#keys + 1] = key
    end
  end
  return list
end

-- Runs `cmd key <items>` in chunks (unpack and the Lua C stack bound one call's arguments).
local function call_chunked(cmd, key, items)
  for a = 1, #items, 4000 do
    redis.call(cmd, key, unpack(items, a, math.min(#items, a + 3999)))
  end
end

local function idx_flush()
  local p = PENDING
  if not p then return end
  PENDING = nil
  for _, key in ipairs(p.keys) do
    if p.zrem[key] then call_chunked('ZREM', key, p.zrem[key]) end
  end
  for _, key in ipairs(p.keys) do
    if p.zadd[key] then call_chunked('ZADD', key, anchor(key, p.zadd[key])) end
    local incr = p.incr[key]
    if incr then
      for _, field in ipairs(incr) do
        if incr[field] ~= 0 then redis.call('HINCRBY', key, field, incr[field]) end
      end
    end
  end
  idx_defer()
end

-- A job's earlier pending writes go out before its indexes change again.
local function touch(id)
  if PENDING and PENDING.ids[id] then idx_flush() end
end

local function incr(key, field, delta)
  if not PENDING then
    redis.call('HINCRBY', key, field, delta)
    return
  end
  local fields = pending_list(PENDING.incr, key)
  if not fields[field] then
    fields[field] = 0
    fields[#fields + 1] = field
  end
  fields[field] = fields[field] + delta
end

local function zrem(key, id)
  if not PENDING then
    redis.call('ZREM', key, id)
    return
  end
  local list = pending_list(PENDING.zrem, key)
  list[#list + 1] = id
end

local function zadd(key, score, id)
  if not PENDING then
    if ANCHORED[key] then redis.call('ZADD', key, score, id, '+inf', ACTIVE_ANCHOR)
    else redis.call('ZADD', key, score, id) end
    return
  end
  local list = pending_list(PENDING.zadd, key)
  list[#list + 1] = score
  list[#list + 1] = id
  PENDING.ids[id] = true
end

local function idx_remove(q, id, v)
  touch(id)
  local state = v.state
  incr(qkey(q, 'counts'), state, -1)
  zrem(state_index(q, state, v), id)
  if EXPIRABLE[state] and v['@expiresAt'] then zrem(qkey(q, 'exp'), id) end
  if DISPATCH_ON and state == DISPATCHED and v['@dispatchedAt'] then
    -- kept for idx_add when the job stays dispatched (an in-place update keeps its place)
    v['@dscore'] = redis.call('ZSCORE', qkey(q, 'disp'), id)
    zrem(qkey(q, 'disp'), id)
  end
end

-- Scores go out as the stored decimal text where there is one: redis.call formats a Lua number with printf,
-- which costs more than the rest of an index write.
local function active_score(v)
  local a, b = tonumber(v['@visibleUntil']), tonumber(v['@timeoutAt'])
  if a and b then
    if b < a then return v['@timeoutAt'] end
    return v['@visibleUntil']
  end
  if a then return v['@visibleUntil'] end
  if b then return v['@timeoutAt'] end
  return '+inf'
end

-- The stored decimal text `s` when it is a number, else 0.
local function score_of(s)
  if tonumber(s) then return s end
  return 0
end

-- An available job that stays available in queue `q` keeps its FIFO place: its sequence, read from its avail
-- score into v['@seq'] before idx_remove takes it out (the job hash does not hold it: one field less for every
-- claim to read), is the one idx_add puts it back with.
local function idx_keep_seq(q, id, v)
  touch(id)
  local score = tonumber(redis.call('ZSCORE', qkey(q, 'avail'), id))
  if score then v['@seq'] = avail_seq(score) end
end

-- fresh: the job has just entered its state (entering `available` takes a new FIFO sequence; a job that stays
-- available keeps v['@seq'], see idx_keep_seq).
local function idx_add(q, id, jk, v, fresh)
  touch(id)
  local state = v.state
  incr(qkey(q, 'counts'), state, 1)
  local score = 0
  if state == STATE.claimable then
    local seq = tonumber(v['@seq'])
    if fresh or not seq then
      seq = redis.call('INCR', qkey(q, 'seq'))
      v['@seq'] = seq
    end
    score = avail_score(tonumber(v.priority) or 0, seq)
  elseif DUE[state] then
    score = score_of(v['@dueAt'])
  elseif state == STATE.claimed then
    score = active_score(v)
  elseif TERMINAL[state] then
    score = score_of(v['@finishedAt'])
  end
  zadd(state_index(q, state, v), score, id)
  if EXPIRABLE[state] and v['@expiresAt'] then zadd(qkey(q, 'exp'), score_of(v['@expiresAt']), id) end
  -- A job the dispatch log delivered is also in P:{q}:disp, ordered as the ready index (priority, then a FIFO
  -- sequence drawn when it was dispatched): what job-claim-dispatched.lua takes from.
  if DISPATCH_ON and state == DISPATCHED and v['@dispatchedAt'] then
    local dscore = not fresh and v['@dscore']
    if not dscore then dscore = avail_score(tonumber(v.priority) or 0, redis.call('INCR', qkey(q, 'seq'))) end
    zadd(qkey(q, 'disp'), dscore, id)
  end
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
local function queue_register(q, nowIso) register_queue(QUEUES, queue_base(P, q), q, nowIso) end

-- Removes a job and every trace of it (indexes, counts, directory, unique membership, history).
local function job_remove(q, id, jk)
  local v = read_view(q, id, jk)
  if v then
    idx_remove(q, id, v)
    if v['@uniqueKey'] then redis.call('SREM', ukey(v['@uniqueKey']), id) end
    redis.call('DEL', jk)
  end
  hist_delete(qkey(q, ''), id)
  redis.call('HDEL', IDS, id)
end
