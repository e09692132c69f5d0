--[[ rate-limit-state.lua: Driver.rateLimitState. Reads where a queue's rate limits stand.
KEYS: none (P:{q}:rl, P:{q}:rlkeys, P:{q}:counts, P:rlk:<key> of the queue's keys).
ARGV: P, queue.
Returns: { now (ms, server TIME, as text), last claim ms|false, interval ms|false, active jobs of the queue,
  { key, active, concurrency, ... } flat }.
Transition: none (members of a key no longer active are dropped, as the claim would). ]]
--!include lib/generated.lua
--!include lib/keys.lua
--!include lib/rate-limits.lua

local q = ARGS[2]
local w = redis.call('HMGET', qkey(q, 'rl'), 'at', 'ivl')
local keys = redis.call('HGETALL', qkey(q, 'rlkeys'))
local flat = {}
for i = 1, #keys, 2 do
  flat[#flat + 1] = keys[i]
  flat[#flat + 1] = rl_key_active(keys[i], 0)
  flat[#flat + 1] = keys[i + 1]
end
return { string.format('%.3f', rl_now()), w[1] or false, w[2] or false, tonumber(redis.call('HGET', qkey(q, 'counts'), STATE.claimed)) or 0, flat }
