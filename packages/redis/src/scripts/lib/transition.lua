--[[ lib/transition.lua: guarded compare-and-sets on jobs (shared by job-transition, job-transition-many).
Requires lib/keys.lua, lib/indexes.lua and the generated LEGAL table.

A batch of ops is read from ARGV starting at index i: nShapes, the shapes, nOps, the ops. A shape is what
ops of a batch usually share (every ACK of a batch writes the same fields), so it travels and is parsed once:
  from (",s1,s2,"), to, expectDeadLetter ('1'|'0'|''), returning ('job'|'summary'), nSet, nSet field/value
  pairs, nDel, nDel field names.
An op is: id, expectAttempt|'', expectWorkerId|'', expectVisibleUntil|'', shape number (1-based), queue|''
(the queue the caller saw the job in: the job is read there first, and found through P:ids when it is not),
then its history note: at, trigger, reason|false (lib/history.lua: a change of state appends its line).
Each op succeeds or fails on its own; its result is:
  {1, fromState, fields}          success; fields = HGETALL (job) or the summary fields
  {0, currentState|false, fields} guard failed (fields = HGETALL when the job exists) ]]

-- Whether a job in `state` may take this shape's edge: in `from`, and a row of core's transition table (or an
-- in-place update), whatever the caller allowed. Memoized per shape: a batch of ACKs asks it once per state.
local function shape_admits(shape, state)
  local ok = shape.admits[state]
  if ok == nil then
    ok = shape.fromSet[state] == true and (state == shape.to or LEGAL[state .. '>' .. shape.to] == true)
    shape.admits[state] = ok
  end
  return ok
end

local function guard_holds(v, shape, eAtt, eWorker, eVis)
  if not shape_admits(shape, v.state) then return false end
  -- A dispatch log's store: a delivered job (the marker set) never goes back to where the log took it from (the
  -- row pending -> available is ACTIVATE's, for staged jobs only); shape_view reads the marker there.
  if DISPATCH_ON and v.state == DISPATCHED and v['@dispatchedAt'] and DISPATCH_FROM_IN(shape.to) then return false end
  if eAtt ~= '' and tonumber(v.attempt) ~= tonumber(eAtt) then return false end
  -- the worker guard applies only when the job has a worker
  if eWorker ~= '' and v.worker_id and v.worker_id ~= eWorker then return false end
  if eVis ~= '' and tonumber(v['@visibleUntil']) ~= tonumber(eVis) then return false end
  local eDl = shape.eDl
  if eDl ~= '' and (v['@deadLetter'] == '1') ~= (eDl == '1') then return false end
  return true
end

-- The view fields an op of this shape reads: what its guards and the removal from the old index need, and
-- what the new index and the reply need unless the op writes it (an ACK reads 5 fields, not 14: each field
-- read scans the job's listpack, all of it when the field is absent). `vis`: the op guards @visibleUntil.
local function shape_view(shape, vis)
  local to, fromSet = shape.to, shape.fromSet
  local touched = {}
  for k = 1, #shape.set, 2 do touched[shape.set[k]] = true end
  for k = 1, #shape.del do touched[shape.del[k]] = true end
  -- whether the job may be in one of `states` before or after the op
  local function may_be(states)
    if states[to] then return true end
    for s in pairs(fromSet) do
      if states[s] then return true end
    end
    return false
  end
  local fields = { 'state', 'attempt', 'worker_id' }
  local function read(f) fields[#fields + 1] = f end
  local function read_unless_written(f) if not touched[f] then read(f) end end
  if shape.eDl ~= '' or to == STATE.deadLetter or fromSet[STATE.deadLetter] then read('@deadLetter') end
  if touched['@uniqueKey'] then read('@uniqueKey') end
  if may_be(EXPIRABLE) then read('@expiresAt') end
  if vis then read('@visibleUntil') elseif to == STATE.claimed then read_unless_written('@visibleUntil') end
  if to == STATE.claimed then read_unless_written('@timeoutAt') end
  if to == STATE.claimable then read_unless_written('priority') end
  -- a dispatch log's store: the dispatched index (lib/indexes.lua) needs the marker, and the priority to enter it
  if DISPATCH_ON and may_be({ [DISPATCHED] = true }) then
    read('@dispatchedAt')
    if to == DISPATCHED then read_unless_written('priority') end
  end
  if DUE[to] then read_unless_written('@dueAt') end
  if TERMINAL[to] then read_unless_written('@finishedAt') end
  if shape.returning == 'summary' then
    read('type')
    read('workflow_id')
  end
  return fields
end

-- Reads the shapes of a batch; returns them and the index after them (where nOps is).
local function read_shapes(i)
  local shapes = {}
  local count = tonumber(ARGS[i])
  i = i + 1
  for s = 1, count do
    local nset = tonumber(ARGS[i + 4])
    local delPos = i + 5 + 2 * nset
    local ndel = tonumber(ARGS[delPos])
    local fromSet = {}
    for state in string.gmatch(ARGS[i], '[^,]+') do fromSet[state] = true end
    shapes[s] = { fromSet = fromSet, to = ARGS[i + 1], eDl = ARGS[i + 2], returning = ARGS[i + 3], admits = {},
      set = { unpack(ARGS, i + 5, delPos - 1) }, del = { unpack(ARGS, delPos + 1, delPos + ndel) } }
    shapes[s].view = shape_view(shapes[s], false)
    shapes[s].packed, shapes[s].own, shapes[s].drop = split_writes(shapes[s].set, shapes[s].del, shapes[s].to)
    i = delPos + 1 + ndel
  end
  return shapes, i
end

local function transition(id, eAtt, eWorker, eVis, shape, hint, at, trigger, reason)
  local fields = shape.view
  if eVis ~= '' then
    -- the view of an op that guards @visibleUntil, built the first time a batch needs it (an ACK never does)
    fields = shape.viewVis
    if not fields then
      fields = shape_view(shape, true)
      shape.viewVis = fields
    end
  end
  -- A job is in one queue's hash only: read where the caller saw it, else where the directory says it is.
  local q, jk, v, hv = hint, nil, nil, nil
  if hint ~= '' then
    jk = jkey(q, id)
    v, hv = read_view(q, id, jk, fields)
  end
  if not v then
    q, jk = locate(id)
    if not q then return { 0, false } end
    v, hv = read_view(q, id, jk, fields)
    if not v then return { 0, false } end
  end
  if not guard_holds(v, shape, eAtt, eWorker, eVis) then
    return { 0, v.state, redis.call('HGETALL', jk) }
  end

  local state, to = v.state, shape.to
  local oldUk = v['@uniqueKey']
  -- the worker that held the job, for the history line of a move that clears worker_id
  local heldBy = v.worker_id
  if state == STATE.claimable and to == STATE.claimable then idx_keep_seq(q, id, v) end
  idx_remove(q, id, v)
  apply_writes(jk, shape.packed, shape.own, shape.drop, hv)
  view_apply(v, shape.set, 1, #shape.set, shape.del, 1, #shape.del)
  v.state = to

  if v['@uniqueKey'] ~= oldUk then
    if oldUk then redis.call('SREM', ukey(oldUk), id) end
    if v['@uniqueKey'] then redis.call('SADD', ukey(v['@uniqueKey']), id) end
  end
  local newq = v.queue
  if newq ~= q then
    -- Moving queues: the hash changes hash tag (spans two queues; see README). A transition carries no
    -- time, so a queue it creates is dated by the job.
    local nk = jkey(newq, id)
    redis.call('RENAME', jk, nk)
    redis.call('HSET', IDS, id, newq)
    -- created_at is the first key of the sealed field '@e' (codec.ts), so the anchored match cannot land in user data
    local created = string.match(redis.call('HGET', nk, '@e') or '', '^{"created_at":"([^"]*)"')
    local enqueued = hv[HOT_AT.enqueued_at]
    queue_register(newq, enqueued ~= '' and enqueued or redis.call('HGET', nk, 'created_at') or created or '')
    if HISTORY_ON then hist_move(qkey(q, ''), qkey(newq, ''), id) end
    jk = nk
  end
  idx_add(newq, id, jk, v, state ~= to or newq ~= q)
  if HISTORY_ON and state ~= to then
    hist_push(qkey(newq, ''), id, hist_line(at, state, to, trigger, v.attempt or '0', v.worker_id or heldBy, reason))
  end

  if shape.returning == 'summary' then return { 1, state, view_summary(v) } end
  return { 1, state, redis.call('HGETALL', jk) }
end

-- A dispatch log's delivery (DISPATCH_EFFECTS.dispatch: the state, and the marker stamped), the one move per job
-- of @ojskit/kafka's dispatcher besides the claim and the ACK, has a short way (dispatch_one): the general
-- transition above splits all of '@h' into a table and joins it again, reads a view through a field list and
-- draws a FIFO sequence per job (~30 us of Redis a job, SLOWLOG); this reads the four leading '@h' fields it needs
-- with one pattern and rewrites only the state in place. Whether a shape takes it is decided once per shape;
-- anything unusual about a job (not in a state the shape admits, already moved on, gone) takes the general way,
-- which answers exactly as before.
local DISPATCH_HEAD = '^([^|]*)|([^|]*)|([^|]*)|([^|]*)|'
local function dispatch_shape(shape)
  if not DISPATCH_ON or shape.to ~= DISPATCHED or shape.returning ~= 'summary' or shape.eDl ~= '' then return false end
  if #shape.del ~= 0 or #shape.set ~= 2 or shape.set[1] ~= '@dispatchedAt' then return false end
  -- DISPATCH_HEAD reads state, attempt, type and priority as the first four fields of '@h'
  return HOT_AT.state == 1 and HOT_AT.attempt == 2 and HOT_AT.type == 3 and HOT_AT.priority == 4
end

-- FIFO sequences for the dispatched index, drawn for the whole batch at once (see dispatch_one).
local DISPATCH_SEQ = { next = 0, last = -1 }

local function dispatch_one(id, shape, hint, at, trigger, reason, remaining)
  local q, jk, r = hint, nil, nil
  if hint ~= '' then
    jk = jkey(q, id)
    r = redis.call('HMGET', jk, '@h', 'workflow_id', '@expiresAt')
  end
  if not r or not r[1] then
    q, jk = locate(id)
    if not q then return nil end
    r = redis.call('HMGET', jk, '@h', 'workflow_id', '@expiresAt')
    if not r[1] then return nil end
  end
  local h = r[1]
  local state, attempt, jobType, priority = string.match(h, DISPATCH_HEAD)
  if not state or not shape_admits(shape, state) or state == shape.to then return nil end
  -- the view lib/indexes.lua needs to take the job out of its old indexes and into the new ones
  local v = { state = state, priority = priority ~= '' and priority or false, ['@expiresAt'] = r[3],
    ['@deadLetter'] = false, ['@dispatchedAt'] = false }
  idx_remove(q, id, v)
  local own = shape.own
  own[#own] = shape.to .. string.sub(h, #state + 1)
  redis.call('HSET', jk, unpack(own))
  v.state = shape.to
  v['@dispatchedAt'] = shape.set[2]
  if DISPATCH_SEQ.next > DISPATCH_SEQ.last then
    local last = redis.call('INCRBY', qkey(q, 'seq'), remaining)
    DISPATCH_SEQ.next, DISPATCH_SEQ.last, DISPATCH_SEQ.queue = last - remaining + 1, last, q
  end
  if DISPATCH_SEQ.queue == q then
    v['@dscore'] = avail_score(tonumber(priority) or 0, DISPATCH_SEQ.next)
    DISPATCH_SEQ.next = DISPATCH_SEQ.next + 1
  end
  -- fresh = false: idx_add keeps v['@dscore'] (drawing its own sequence only for a job of another queue)
  idx_add(q, id, jk, v, false)
  if HISTORY_ON then
    local worker = string.byte(h, -1) ~= 124 and string.match(h, HIST_WORKER)
    hist_push(qkey(q, ''), id, hist_line(at, state, shape.to, trigger, attempt ~= '' and attempt or '0', worker, reason))
  end
  return { 1, state, { id, jobType, q, shape.to, attempt ~= '' and attempt or false, r[2] } }
end

-- Runs the batch of ops starting at ARGS[i]; returns one result per op, in op order.
local function transition_batch(i)
  local shapes
  shapes, i = read_shapes(i)
  local n = tonumber(ARGS[i])
  i = i + 1
  local out = {}
  for k = 1, n do
    local shape = shapes[tonumber(ARGS[i + 4])]
    if shape.dispatch == nil then shape.dispatch = dispatch_shape(shape) end
    local r = shape.dispatch and ARGS[i + 1] == '' and ARGS[i + 2] == '' and ARGS[i + 3] == ''
      and dispatch_one(ARGS[i], shape, ARGS[i + 5], ARGS[i + 6], ARGS[i + 7], ARGS[i + 8], n - k + 1)
    out[k] = r or transition(ARGS[i], ARGS[i + 1], ARGS[i + 2], ARGS[i + 3], shape, ARGS[i + 5], ARGS[i + 6], ARGS[i + 7], ARGS[i + 8])
    i = i + 9
  end
  return out
end
