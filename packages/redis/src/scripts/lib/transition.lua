--[[ lib/transition.lua: one guarded compare-and-set on a job (shared by job-transition, job-transition-many).
Requires lib/keys.lua, lib/indexes.lua and the generated LEGAL table.

An op is read from ARGV starting at index i:
  id, from (",s1,s2,"), to, expectAttempt|'', expectWorkerId|'', expectVisibleUntil|'', expectDeadLetter ('1'|'0'|''),
  returning ('job'|'summary'), nSet, nSet field/value pairs, nDel, nDel field names.
Returns (result, index after the op). result:
  {1, fromState, fields}          success; fields = HGETALL (job) or the summary fields
  {0, currentState|false, fields} guard failed (fields = HGETALL when the job exists) ]]

local function guard_holds(cur, from, to, eAtt, eWorker, eVis, eDl)
  if not string.find(from, ',' .. cur[1] .. ',', 1, true) then return false end
  -- a change of state must be a row of core's transition table, whatever the caller allowed
  if cur[1] ~= to and not LEGAL[cur[1] .. '>' .. to] then return false end
  if eAtt ~= '' and tonumber(cur[2]) ~= tonumber(eAtt) then return false end
  -- the worker guard applies only when the job has a worker
  if eWorker ~= '' and cur[3] and cur[3] ~= eWorker then return false end
  if eVis ~= '' and tonumber(cur[4]) ~= tonumber(eVis) then return false end
  if eDl ~= '' and (cur[5] == '1') ~= (eDl == '1') then return false end
  return true
end

local function transition(i)
  local id, from, to = ARGV[i], ARGV[i + 1], ARGV[i + 2]
  local eAtt, eWorker, eVis, eDl, returning = ARGV[i + 3], ARGV[i + 4], ARGV[i + 5], ARGV[i + 6], ARGV[i + 7]
  local nset = tonumber(ARGV[i + 8])
  local setStart = i + 9
  local delPos = setStart + 2 * nset
  local ndel = tonumber(ARGV[delPos])
  local nexti = delPos + 1 + ndel

  local q, jk = locate(id)
  if not q then return { 0, false }, nexti end
  local cur = redis.call('HMGET', jk, 'state', 'attempt', 'worker_id', '@visibleUntil', '@deadLetter', '@uniqueKey')
  if not guard_holds(cur, from, to, eAtt, eWorker, eVis, eDl) then
    return { 0, cur[1], redis.call('HGETALL', jk) }, nexti
  end

  local state = cur[1]
  idx_remove(q, id, state)
  local newq = q
  if nset > 0 then
    local args = { 'HSET', jk }
    for k = setStart, delPos - 1, 2 do
      args[#args + 1] = ARGV[k]
      args[#args + 1] = ARGV[k + 1]
      if ARGV[k] == 'queue' then newq = ARGV[k + 1] end
    end
    redis.call(unpack(args))
  end
  if ndel > 0 then
    redis.call('HDEL', jk, unpack(ARGV, delPos + 1, delPos + ndel))
  end
  redis.call('HSET', jk, 'state', to)
  local uk = redis.call('HGET', jk, '@uniqueKey')
  if uk ~= cur[6] then
    if cur[6] then redis.call('SREM', ukey(cur[6]), id) end
    if uk then redis.call('SADD', ukey(uk), id) end
  end
  if newq ~= q then
    -- Moving queues: the hash changes hash tag (spans two queues; see README).
    local nk = jkey(newq, id)
    redis.call('RENAME', jk, nk)
    redis.call('HSET', IDS, id, newq)
    local meta = redis.call('HMGET', nk, 'created_at')
    queue_register(newq, meta[1] or '')
    jk = nk
  end
  idx_add(newq, id, jk, to, state ~= to or newq ~= q)

  if returning == 'summary' then return { 1, state, summary(jk) }, nexti end
  return { 1, state, redis.call('HGETALL', jk) }, nexti
end
