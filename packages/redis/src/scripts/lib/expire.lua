--[[ lib/expire.lua: expiry and promotion of one job or one queue's due jobs (shared by job-claim,
job-promote, job-expire). Requires lib/keys.lua, lib/indexes.lua. ]]

-- scheduled|available|retryable -> discarded by expiry: discarded_at = expired_at = nowIso, @finishedAt = now.
-- `hv`: the job's split '@h' when the caller read it (read_view), else nil.
local function expire_job(q, id, jk, v, now, nowIso, hv)
  idx_remove(q, id, v)
  local set = { EFFECT_SET.expire }
  job_write(jk, set, { EFFECT_DEL.expire }, hv)
  view_apply(v, set, 1, #set - 1, {}, 1, 0)
  idx_add(q, id, jk, v, true)
end

-- Moves up to `max` due scheduled/retryable jobs of queue q (@dueAt <= now) to available (enqueued_at =
-- nowIso, a new FIFO sequence), or to discarded when @expiresAt < now. Appends summaries (with the from-state
-- as a 7th field) to `promoted` and full jobs to `expired`; returns how many jobs it moved.
local function promote_due(q, now, nowIso, max, promoted, expired)
  if max <= 0 then return 0 end
  local ids = redis.call('ZRANGEBYSCORE', qkey(q, 'due'), '-inf', now, 'LIMIT', 0, max)
  for _, id in ipairs(ids) do
    local jk = jkey(q, id)
    local v, hv = read_view(q, id, jk)
    if not v then
      redis.call('ZREM', qkey(q, 'due'), id)
    elseif v['@expiresAt'] and tonumber(v['@expiresAt']) < now then
      expire_job(q, id, jk, v, now, nowIso, hv)
      expired[#expired + 1] = redis.call('HGETALL', jk)
    else
      local from = v.state
      idx_remove(q, id, v)
      local set = { EFFECT_SET.promote }
      job_write(jk, set, { EFFECT_DEL.promote }, hv)
      view_apply(v, set, 1, #set - 1, {}, 1, 0)
      idx_add(q, id, jk, v, true)
      local s = view_summary(v)
      s[7] = from
      promoted[#promoted + 1] = s
    end
  end
  return #ids
end
