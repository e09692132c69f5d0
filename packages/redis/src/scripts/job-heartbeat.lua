--[[ job-heartbeat.lua: Driver.jobHeartbeat. Extends the visibility deadline of active jobs.
KEYS: none (spans the queues of the jobs named).
ARGV: P, now, visibilityMs|'', workerId|'', id1, id2, ...
Returns: {extended, states}: extended = {id, type, queue, state, attempt, workflow_id, visibleUntil, worker_id}
  per extended job; states = current state (or false) per requested id, in order.
Transition: active -> active with @visibleUntil = now + (visibilityMs or @claimVisibilityMs or @visibilityMs),
  only when the job is held by workerId (when both the request and the job name a worker). ]]
--!include lib/generated.lua
--!include lib/keys.lua
--!include lib/indexes.lua

local now, vis, worker = tonumber(ARGS[2]), ARGS[3], ARGS[4]
local extended, states = {}, {}
for k = 5, #ARGS do
  local id = ARGS[k]
  local q, jk = locate(id)
  local v, hv = nil, nil
  if q then v, hv = read_view(q, id, jk) end
  if not v then
    states[#states + 1] = false
  else
    states[#states + 1] = v.state
    if v.state == STATE.claimed and (worker == '' or not v.worker_id or v.worker_id == worker) then
      local visibleUntil = now + (tonumber(vis) or tonumber(hv[HOT_AT['@claimVisibilityMs']]) or tonumber(hv[HOT_AT['@visibilityMs']]) or 0)
      job_write(jk, { '@visibleUntil', visibleUntil }, {}, hv)
      v['@visibleUntil'] = visibleUntil
      redis.call('ZADD', qkey(q, STATE.claimed), active_score(v), id)
      local s = view_summary(v)
      s[7] = tostring(visibleUntil)
      s[8] = v.worker_id
      extended[#extended + 1] = s
    end
  end
end
return { extended, states }
