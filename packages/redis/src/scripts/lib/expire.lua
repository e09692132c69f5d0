--[[ lib/expire.lua: expiry and promotion of one job or one queue's due jobs (shared by job-claim,
job-promote, job-expire). Requires lib/keys.lua, lib/indexes.lua. ]]

-- scheduled|available|retryable -> discarded by expiry: discarded_at = expired_at = nowIso, @finishedAt = now.
-- `hv`: the job's split '@h' when the caller read it (read_view), else nil.
local function expire_job(q, id, jk, v, now, nowIso, hv)
  local from = v.state
  idx_remove(q, id, v)
  local set, del = { EFFECT_SET.expire }, { EFFECT_DEL.expire }
  job_write(jk, set, del, hv)
  -- the view learns the writes inline (view_apply would cost every call of the script its closure)
  for k = 1, #set, 2 do v[set[k]] = set[k + 1] end
  for k = 1, #del do v[del[k]] = false end
  idx_add(q, id, jk, v, true)
  if HISTORY_ON then hist_push(qkey(q, ''), id, hist_line(nowIso, from, v.state, TRIGGER.expire, v.attempt or '0', v.worker_id)) end
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
      local set, del = { EFFECT_SET.promote }, { EFFECT_DEL.promote }
      job_write(jk, set, del, hv)
      -- the view learns the writes inline (view_apply would cost every call of the script its closure)
      for k = 1, #set, 2 do v[set[k]] = set[k + 1] end
      for k = 1, #del do v[del[k]] = false end
      idx_add(q, id, jk, v, true)
      if HISTORY_ON then hist_push(qkey(q, ''), id, hist_line(nowIso, from, v.state, TRIGGER.promote, v.attempt or '0', v.worker_id)) end
      local s = view_summary(v)
      s[7] = from
      promoted[#promoted + 1] = s
    end
  end
  return #ids
end
