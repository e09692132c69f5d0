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

local now, vis, worker = tonumber(ARGV[2]), ARGV[3], ARGV[4]
local extended, states = {}, {}
for k = 5, #ARGV do
  local id = ARGV[k]
  local q, jk = locate(id)
  if not q then
    states[#states + 1] = false
  else
    local f = redis.call('HMGET', jk, 'state', 'worker_id', '@claimVisibilityMs', '@visibilityMs', '@timeoutAt')
    states[#states + 1] = f[1]
    if f[1] == 'active' and (worker == '' or not f[2] or f[2] == worker) then
      local v = tonumber(vis) or tonumber(f[3]) or tonumber(f[4]) or 0
      local visibleUntil = now + v
      redis.call('HSET', jk, '@visibleUntil', visibleUntil)
      local score = visibleUntil
      local timeoutAt = tonumber(f[5])
      if timeoutAt and timeoutAt < score then score = timeoutAt end
      redis.call('ZADD', qkey(q, 'active'), score, id)
      local s = summary(jk)
      s[7] = tostring(visibleUntil)
      s[8] = f[2]
      extended[#extended + 1] = s
    end
  end
end
return { extended, states }
