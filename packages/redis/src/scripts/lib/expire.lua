--[[ lib/expire.lua: expiry and promotion of one job or one queue's due jobs (shared by job-claim,
job-promote, job-expire). Requires lib/keys.lua, lib/indexes.lua. ]]

-- scheduled|available|retryable -> discarded by expiry: discarded_at = expired_at = nowIso, @finishedAt = now.
local function expire_job(q, id, jk, state, now, nowIso)
  idx_remove(q, id, state)
  redis.call('HSET', jk, 'state', 'discarded', 'discarded_at', nowIso, 'expired_at', nowIso, '@finishedAt', now)
  idx_add(q, id, jk, 'discarded', true)
end

-- Moves up to `max` due scheduled/retryable jobs of queue q (@dueAt <= now) to available (enqueued_at =
-- nowIso, a new FIFO sequence), or to discarded when @expiresAt < now. Appends summaries to `promoted` and
-- full jobs to `expired`; returns how many jobs it moved.
local function promote_due(q, now, nowIso, max, promoted, expired)
  if max <= 0 then return 0 end
  local ids = redis.call('ZRANGEBYSCORE', qkey(q, 'due'), '-inf', now, 'LIMIT', 0, max)
  for _, id in ipairs(ids) do
    local jk = jkey(q, id)
    local f = redis.call('HMGET', jk, 'state', '@expiresAt')
    local state = f[1]
    if not state then
      redis.call('ZREM', qkey(q, 'due'), id)
    elseif f[2] and tonumber(f[2]) < now then
      expire_job(q, id, jk, state, now, nowIso)
      expired[#expired + 1] = redis.call('HGETALL', jk)
    else
      idx_remove(q, id, state)
      redis.call('HSET', jk, 'state', 'available', 'enqueued_at', nowIso)
      idx_add(q, id, jk, 'available', true)
      local s = summary(jk)
      s[7] = state
      promoted[#promoted + 1] = s
    end
  end
  return #ids
end
