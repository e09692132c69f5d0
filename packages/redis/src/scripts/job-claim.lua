--[[ job-claim.lua: Driver.jobClaim. Hands up to `limit` jobs to one worker; no job ever goes to two claimers.
KEYS: none. Touches only P:{q}:* keys of the queues named (one queue: one hash slot; several queues span
      them, see README).
ARGV: P, limit, workerId, now, nowIso, visibilityMs|'' (per job @visibilityMs when empty), queue1, queue2, ...
Returns: {claimed, promoted, expired}: claimed = HGETALL of each claimed job in claim order; promoted =
  summaries (id, type, queue, state, attempt, workflow_id); expired = HGETALL of each expired job.
Transitions, per queue in order, paused queues skipped:
  scheduled|retryable -> available   (@dueAt <= now, up to PROMOTE_BATCH per queue per claim)
  scheduled|retryable|available -> discarded   (@expiresAt < now: discarded_at = expired_at = nowIso)
  available -> active   (attempt + 1, started_at, worker_id, @claimVisibilityMs, @visibleUntil, @timeoutAt;
                         next_attempt_at and @progress removed) ]]
--!include lib/generated.lua
--!include lib/keys.lua
--!include lib/indexes.lua
--!include lib/expire.lua

local PROMOTE_BATCH = 1000
local limit, worker, now, nowIso, vis = tonumber(ARGV[2]), ARGV[3], tonumber(ARGV[4]), ARGV[5], ARGV[6]
local claimed, promoted, expired = {}, {}, {}

for qi = 7, #ARGV do
  if #claimed >= limit then break end
  local q = ARGV[qi]
  if redis.call('HGET', qkey(q, 'meta'), 'paused') ~= '1' then
    promote_due(q, now, nowIso, PROMOTE_BATCH, promoted, expired)
    local avail, sAvail, sActive, active, exp = qkey(q, 'avail'), qkey(q, 's:available'), qkey(q, 's:active'), qkey(q, 'active'), qkey(q, 'exp')
    while #claimed < limit do
      local popped = redis.call('ZPOPMIN', avail, limit - #claimed)
      if #popped == 0 then break end
      for k = 1, #popped, 2 do
        local id = popped[k]
        local jk = jkey(q, id)
        local f = redis.call('HMGET', jk, 'state', '@expiresAt', 'attempt', '@visibilityMs', '@timeoutMs')
        if not f[1] then
          redis.call('ZREM', sAvail, id)
        elseif f[2] and tonumber(f[2]) < now then
          expire_job(q, id, jk, f[1], now, nowIso)
          expired[#expired + 1] = redis.call('HGETALL', jk)
        else
          local cv = tonumber(vis) or tonumber(f[4]) or 0
          local visibleUntil = now + cv
          local timeoutMs = tonumber(f[5])
          local score = visibleUntil
          if timeoutMs then
            local timeoutAt = now + timeoutMs
            if timeoutAt < score then score = timeoutAt end
            redis.call('HSET', jk, 'state', 'active', 'attempt', (tonumber(f[3]) or 0) + 1, 'started_at', nowIso,
              'worker_id', worker, '@claimVisibilityMs', cv, '@visibleUntil', visibleUntil, '@timeoutAt', timeoutAt)
          else
            redis.call('HSET', jk, 'state', 'active', 'attempt', (tonumber(f[3]) or 0) + 1, 'started_at', nowIso,
              'worker_id', worker, '@claimVisibilityMs', cv, '@visibleUntil', visibleUntil)
            redis.call('HDEL', jk, '@timeoutAt')
          end
          redis.call('HDEL', jk, 'next_attempt_at', '@progress')
          redis.call('ZREM', sAvail, id)
          redis.call('ZREM', exp, id)
          redis.call('ZADD', sActive, 0, id)
          redis.call('ZADD', active, score, id)
          claimed[#claimed + 1] = redis.call('HGETALL', jk)
        end
      end
    end
  end
end

return { claimed, promoted, expired }
