--[[ lib/queue-basics.lua: what the short ways of job-claim and job-insert (run before their other includes)
share with the libraries, lib/keys.lua among them (the per-queue key base). Nothing here needs more than the prefix, a queue's key base (P:{q}:) and the
generated anchor. ]]
--!include lib/anchor.lua

-- The key base of queue `q` under prefix `p` (P:{q}:, the hash tag keeping a queue's keys in one slot): every
-- per-queue key is this followed by its suffix (lib/keys.lua lists them).
local function queue_base(p, q)
  return p .. ':{' .. q .. '}:'
end

-- 2^40: FIFO sequences stay below it, priorities in [-100, 100] keep scores below 2^53 (exact doubles).
local SEQ_SPAN = 1099511627776

local function avail_score(priority, seq)
  return (100 - priority) * SEQ_SPAN + seq
end

-- The FIFO sequence inside an avail score (the job hash does not keep it).
local function avail_seq(score)
  return score % SEQ_SPAN
end

-- Registers queue `q` (idempotent; `queues` is P:queues, `base` P:{q}:): the queue record is created at first sight.
local function register_queue(queues, base, q, nowIso)
  if redis.call('SADD', queues, q) == 1 then
    redis.call('HSETNX', base .. 'meta', 'name', q)
    redis.call('HSETNX', base .. 'meta', 'created_at', nowIso)
    redis.call('HSETNX', base .. 'meta', 'paused', '0')
  end
end

-- Appends ACTIVE_ANCHOR to ZADD arguments for an active index: its length keeps the sorted set a skiplist,
-- which a small set of jobs would not be (a listpack, whose every insert parses each member's score back
-- from text: 5x the Redis work of a claim's and an ACK's index writes at a worker's concurrency). Already
-- there, it costs a lookup.
local function append_anchor(items)
  items[#items + 1] = '+inf'
  items[#items + 1] = ACTIVE_ANCHOR
  return items
end
