--[[ job-complete-many.lua: Driver.jobCompleteMany, the ACKs of a worker (its hot path), one or many.
KEYS: none (spans the queues of the jobs named; a job is read in the queue the caller claimed it from, and
      found through P:ids when it is not there).
ARGV: [1] (packed as one JSON array) P, nShapes, the shapes, nOps, the ops; [2...] the compare-and-set texts.
  A shape (what the ACKs of one instant share, written by the caller from core's EFFECTS.ack): from
  (",s1,s2,"), finishedAt (the `fin` score, decimal text), nSet, nSet field/value pairs, nDel, nDel field
  names, full ('1': answer each completed job in full, else ''), at (the history line's instant).
  An op: id, expectAttempt|'', expectWorkerId|'', shape number (1-based), queue|'', result JSON text|'',
  cas|'' (when a number c: ARGV[c] is '@h' as the caller claimed the job, ARGV[c + 1] '@h' as this
  completion leaves it, computed by the caller from the shape, and, when history is on, ARGV[c + 2] the
  completion's history line (lib/history.lua); ops whose texts are equal share one c. A negative c: the same
  at -c without the line, sent so for a queue the claim said opts out of history; should the queue record
  history again by now, the line is made here from ARGV[-c]).
Returns (as RESP): one entry per op, in op order: on success the text 'attempt|queue|type' (the job went
  active -> completed; type and queue names never hold '|'), or '=' when it went by compare-and-set (the caller
  knows the rest), or {1, fields} (HGETALL after the change) when the shape says full or the job is a workflow
  member (the engine advances its workflow with it); when the guard failed {currentState|false, fields}
  (fields = HGETALL of the job when it exists). One text per ACK: cjson-encoding a summary array cost ~7.7k
  Redis instructions per job, a text and its RESP bulk ~1.5k.
Transition: active -> completed (the state must be in the op's from and the edge a row of core's table), with
  the attempt guard, and the worker guard when the job has a worker; the job leaves `active` for `fin`.
  Compare-and-set: a stored '@h' equal to ARGV[c] is the one the claim wrote (state active, the attempt and
  worker the caller checked against the op's guards), so the guard holds and ARGV[c + 1] is written as it is,
  without splitting and joining '@h' here (~18k instructions per job); any other value (a heartbeat moved the
  deadline, the job moved on) takes the usual path. Lua interns strings, so the comparison is one pointer test.
  Each completion appends its history line.
Why a script of its own: job-transition-many reads each op's guard and index view through a general shape
(any edge, queue moves, unique keys, dead letters) and keeps a job's index writes pending by job; an ACK needs
none of it, and that generality was a third of a processed job's Redis work. Index writes go out once per
queue at the end, which is safe because nothing here reads an index or a count. ]]
--!include lib/generated.lua
--!include lib/keys.lua
--!include lib/hot.lua
--!include lib/history.lua

local H_STATE, H_ATTEMPT, H_TYPE, H_WORKER = HOT_AT.state, HOT_AT.attempt, HOT_AT.type, HOT_AT.worker_id

-- A shape's writes, split once by where each field lives (split_writes, lib/hot.lua); an op with a result
-- appends it to `own` behind the '@h' pair.
local shapes = {}
local i = 3
for s = 1, tonumber(ARGS[2]) do
  local fromSet = {}
  for state in string.gmatch(ARGS[i], '[^,]+') do fromSet[state] = true end
  local nset = tonumber(ARGS[i + 2])
  local delPos = i + 3 + 2 * nset
  local ndel = tonumber(ARGS[delPos])
  local packed, own, drop = split_writes({ unpack(ARGS, i + 3, delPos - 1) }, { unpack(ARGS, delPos + 1, delPos + ndel) }, STATE.completed)
  shapes[s] = { admits = fromSet[STATE.claimed] == true and ACK_LEGAL, finishedAt = ARGS[i + 1], full = ARGS[delPos + ndel + 1] == '1',
    at = ARGS[delPos + ndel + 2], packed = packed, own = own, nown = #own, drop = drop, ask = { '@h', 'workflow_id', unpack(drop) } }
  i = delPos + 3 + ndel
end

-- per queue: ids leaving `active`, and score/id pairs entering `fin`
local byQueue, queues = {}, {}
-- per queue: whether it records history
local recorded = {}
local out = {}
local n = tonumber(ARGS[i])
i = i + 1
for k = 1, n do
  local id, eAtt, eWorker, shape, hint, result, cas = ARGS[i], ARGS[i + 1], ARGS[i + 2], shapes[tonumber(ARGS[i + 3])], ARGS[i + 4], ARGS[i + 5], ARGS[i + 6]
  i = i + 7
  local q, jk, r = hint, nil, nil
  if q ~= '' then
    jk = jkey(q, id)
    r = redis.call('HMGET', jk, unpack(shape.ask))
  end
  if not (r and r[1]) then
    q = redis.call('HGET', IDS, id)
    if q then
      jk = jkey(q, id)
      r = redis.call('HMGET', jk, unpack(shape.ask))
    end
  end
  -- '@h' after the completion and the answer, once the guard held
  local after, done, line
  -- whether the job's queue records history, looked up once per queue (lib/history.lua hist_on)
  local rec = false
  if HISTORY_ON and q then
    rec = recorded[q]
    if rec == nil then
      rec = hist_on(qkey(q, ''))
      recorded[q] = rec
    end
  end
  -- a negative c: no line was sent with the texts
  local c = cas
  if c ~= '' and c < 0 then c = -c end
  if c ~= '' and r and r[1] == ARGV[c] and shape.admits then
    after = ARGV[c + 1]
    done = '='
    if rec then
      if cas > 0 then line = ARGV[c + 2]
      else
        local hv = hot_split(r[1])
        line = hist_line(shape.at, STATE.claimed, STATE.completed, TRIGGER.ack, hv[H_ATTEMPT], hv[H_WORKER])
      end
    end
  else
    local hv = r and r[1] and hot_split(r[1])
    if not hv then
      out[k] = { false }
    elseif hv[H_STATE] ~= STATE.claimed or not shape.admits or (eAtt ~= '' and tonumber(hv[H_ATTEMPT]) ~= tonumber(eAtt))
      or (eWorker ~= '' and hv[H_WORKER] ~= '' and hv[H_WORKER] ~= eWorker) then
      out[k] = { hv[H_STATE], redis.call('HGETALL', jk) }
    else
      done = hv[H_ATTEMPT] .. '|' .. q .. '|' .. hv[H_TYPE]
      if rec then line = hist_line(shape.at, STATE.claimed, STATE.completed, TRIGGER.ack, hv[H_ATTEMPT], hv[H_WORKER]) end
      local packed = shape.packed
      for p = 1, #packed, 2 do hv[packed[p]] = packed[p + 1] end
      after = hot_join(hv)
    end
  end
  if after then
    local own, m = shape.own, shape.nown
    own[m] = after
    if result ~= '' then
      own[m + 1] = 'result'
      own[m + 2] = result
      redis.call('HSET', jk, unpack(own))
      own[m + 1] = nil
      own[m + 2] = nil
    else
      redis.call('HSET', jk, unpack(own))
    end
    -- only the fields the job has: a completed job seldom carries an error, and an HDEL is a call
    local drop, gone = shape.drop, nil
    for d = 1, #drop do
      if r[2 + d] then
        gone = gone or {}
        gone[#gone + 1] = drop[d]
      end
    end
    if gone then redis.call('HDEL', jk, unpack(gone)) end
    if rec then hist_append(qkey(q, ''), id, line) end
    local b = byQueue[q]
    if not b then
      b = { active = {}, fin = {} }
      byQueue[q] = b
      queues[#queues + 1] = q
    end
    b.active[#b.active + 1] = id
    b.fin[#b.fin + 1] = shape.finishedAt
    b.fin[#b.fin + 1] = id
    if shape.full or r[2] then out[k] = { 1, redis.call('HGETALL', jk) } else out[k] = done end
  end
end

for _, q in ipairs(queues) do
  local b = byQueue[q]
  for a = 1, #b.active, 4000 do redis.call('ZREM', qkey(q, STATE.claimed), unpack(b.active, a, math.min(#b.active, a + 3999))) end
  for a = 1, #b.fin, 4000 do redis.call('ZADD', qkey(q, 'fin'), unpack(b.fin, a, math.min(#b.fin, a + 3999))) end
  local counts = qkey(q, 'counts')
  redis.call('HINCRBY', counts, STATE.claimed, -#b.active)
  redis.call('HINCRBY', counts, STATE.completed, #b.active)
end
return out
