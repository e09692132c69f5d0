--[[ queue-config-set.lua: Driver.queueConfigSet. Stores a queue's configuration, registering the queue.
KEYS: none (P:queue-config, P:queues and P:{q}:meta).
ARGV: P, name, config (JSON text), nowIso, rate interval ms|'' , rate concurrency|'' (core's queueClaimLimitOf),
      age boost interval ms|'', history opt-out '1'|''.
Returns: the stored JSON text.
Transition: none (the engine reads the bounds and hands them to job-insert.lua; the claim reads the queue-level
  rate limit from P:{q}:meta rl_ivl / rl_conc, see lib/rate-limits.lua, and the age boost from age_ms, see
  lib/age-boost.lua, and whether the queue's transitions append history from hist_off, see lib/history.lua). ]]
--!include lib/generated.lua
--!include lib/keys.lua
--!include lib/indexes.lua

queue_register(ARGS[2], ARGS[4])
redis.call('HSET', P .. ':queue-config', ARGS[2], ARGS[3])
local meta = qkey(ARGS[2], 'meta')
for i, field in ipairs({ 'rl_ivl', 'rl_conc', 'age_ms', 'hist_off' }) do
  local v = ARGS[4 + i]
  if v and v ~= '' then redis.call('HSET', meta, field, v) else redis.call('HDEL', meta, field) end
end
return ARGS[3]
