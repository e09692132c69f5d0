--[[ lib/transition.lua: one guarded compare-and-set on a job (shared by job-transition, job-transition-many).
Requires lib/keys.lua, lib/indexes.lua and the generated LEGAL table.

An op is read from ARGV starting at index i:
  id, from (",s1,s2,"), to, expectAttempt|'', expectWorkerId|'', expectVisibleUntil|'', expectDeadLetter ('1'|'0'|''),
  returning ('job'|'summary'), nSet, nSet field/value pairs, nDel, nDel field names.
Returns (result, index after the op). result:
  {1, fromState, fields}          success; fields = HGETALL (job) or the summary fields
  {0, currentState|false, fields} guard failed (fields = HGETALL when the job exists) ]]

local function guard_holds(v, from, to, eAtt, eWorker, eVis, eDl)
  if not string.find(from, ',' .. v.state .. ',', 1, true) then return false end
  -- a change of state must be a row of core's transition table, whatever the caller allowed
  if v.state ~= to and not LEGAL[v.state .. '>' .. to] then return false end
  if eAtt ~= '' and tonumber(v.attempt) ~= tonumber(eAtt) then return false end
  -- the worker guard applies only when the job has a worker
  if eWorker ~= '' and v.worker_id and v.worker_id ~= eWorker then return false end
  if eVis ~= '' and tonumber(v['@visibleUntil']) ~= tonumber(eVis) then return false end
  if eDl ~= '' and (v['@deadLetter'] == '1') ~= (eDl == '1') then return false end
  return true
end

local function transition(i)
  local id, from, to = ARGS[i], ARGS[i + 1], ARGS[i + 2]
  local eAtt, eWorker, eVis, eDl, returning = ARGS[i + 3], ARGS[i + 4], ARGS[i + 5], ARGS[i + 6], ARGS[i + 7]
  local nset = tonumber(ARGS[i + 8])
  local setStart = i + 9
  local delPos = setStart + 2 * nset
  local ndel = tonumber(ARGS[delPos])
  local nexti = delPos + 1 + ndel

  local q, jk = locate(id)
  if not q then return { 0, false }, nexti end
  local v = read_view(jk)
  if not v then return { 0, false }, nexti end
  if not guard_holds(v, from, to, eAtt, eWorker, eVis, eDl) then
    return { 0, v.state, redis.call('HGETALL', jk) }, nexti
  end

  local state = v.state
  local oldUk = v['@uniqueKey']
  idx_remove(q, id, v)
  local args = { 'HSET', jk, 'state', to }
  for k = setStart, delPos - 1 do args[#args + 1] = ARGS[k] end
  redis.call(unpack(args))
  if ndel > 0 then redis.call('HDEL', jk, unpack(ARGS, delPos + 1, delPos + ndel)) end
  view_apply(v, ARGS, setStart, delPos - 1, ARGS, delPos + 1, delPos + ndel)
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
    queue_register(newq, redis.call('HGET', nk, 'enqueued_at') or redis.call('HGET', nk, 'created_at') or '')
    jk = nk
  end
  idx_add(newq, id, jk, v, state ~= to or newq ~= q)

  if returning == 'summary' then return { 1, state, view_summary(v) }, nexti end
  return { 1, state, redis.call('HGETALL', jk) }, nexti
end
