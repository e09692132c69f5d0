--[[ lib/keys.lua: key builders shared by every script.
Convention: ARGS[1] is always the key prefix P. Per-queue keys carry the hash tag {queue}:
  P:{q}:j:<id>     job hash (envelope fields + '@'-prefixed internals)
  P:{q}:counts     hash: jobs per state
  P:{q}:avail      zset: available ids by (100 - priority) * 2^40 + FIFO sequence
  P:{q}:due        zset: scheduled/retryable ids by @dueAt
  P:{q}:active     zset: active ids by min(@visibleUntil, @timeoutAt), and ACTIVE_ANCHOR (+inf)
  P:{q}:st:<state> zset, score 0: ids of a state without an index of its own (pending)
  P:{q}:disp       zset (a dispatch log's store): pending ids carrying @dispatchedAt, scored as avail (also in st:pending)
  P:{q}:exp        zset: scheduled/available/retryable ids with @expiresAt, by it
  P:{q}:fin        zset: terminal ids outside the dead-letter queue, by @finishedAt
  P:{q}:dl         zset: dead-lettered (discarded + @deadLetter) ids, by @finishedAt
  P:{q}:seq        counter of the FIFO sequence
  P:{q}:meta       hash: the queue record (name, paused, created_at, paused_at, resumed_at)
  P:{q}:h:<id>     list: the job's history lines; P:{q}:hdrop hash: id -> lines dropped (lib/history.lua)
Every job is in exactly one of avail, due, active, st:<state>, fin, dl.
Global keys: P:queues (set of names), P:ids (hash id -> queue), P:u:<uniqueKey> (set of job ids).
Arguments: hot-path scripts receive theirs packed as one JSON array (ARGV[1] starts with '['; a prefix never
does), which saves the client encoding hundreds of bulk strings per batch; ARGS is the argument list either
way. cjson decodes strings exactly, and user data stays opaque JSON text inside them. ]]
--!include lib/queue-basics.lua
local ARGS = ARGV
if string.byte(ARGV[1], 1) == 91 then ARGS = cjson.decode(ARGV[1]) end
local P = ARGS[1]

-- An integer as exact decimal text (tostring and cjson keep only 14 significant digits).
local function int(n)
  return string.format('%d', n)
end
local IDS = P .. ':ids'
local QUEUES = P .. ':queues'

-- Per-queue keys built once per call: a batch touches the same few keys for every job, and a concatenation
-- (a new string, hashed and interned) costs more than two table lookups.
local QKEYS = {}
-- The active index keys built so far: each holds ACTIVE_ANCHOR (see lib/indexes.lua, anchor).
local ANCHORED = {}

local function qkey(q, suffix)
  local keys = QKEYS[q]
  if not keys then
    keys = {}
    QKEYS[q] = keys
  end
  local k = keys[suffix]
  if not k then
    k = queue_base(P, q) .. suffix
    keys[suffix] = k
    if suffix == STATE.claimed then ANCHORED[k] = true end
  end
  return k
end

local function jkey(q, id)
  return qkey(q, 'j:') .. id
end

local function ukey(uk)
  return P .. ':u:' .. uk
end
