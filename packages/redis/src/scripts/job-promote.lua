--[[ job-promote.lua: Driver.jobPromote. Moves due scheduled/retryable jobs of every queue to available.
KEYS: none (spans every queue in P:queues).
ARGV: P, now, nowIso, limit.
Returns: {promoted summaries, expired HGETALLs} (see job-claim.lua for the shapes).
Transitions: scheduled|retryable -> available (@dueAt <= now; enqueued_at = nowIso; new FIFO sequence), or
  -> discarded when @expiresAt < now (discarded_at = expired_at = nowIso). Paused queues are promoted too. ]]
--!include lib/generated.lua
--!include lib/keys.lua
--!include lib/indexes.lua
--!include lib/expire.lua

local now, nowIso, limit = tonumber(ARGS[2]), ARGS[3], tonumber(ARGS[4])
local promoted, expired = {}, {}
local left = limit
for _, q in ipairs(redis.call('SMEMBERS', QUEUES)) do
  if left <= 0 then break end
  left = left - promote_due(q, now, nowIso, left, promoted, expired)
end
return { promoted, expired }
