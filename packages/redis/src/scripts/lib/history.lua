--[[ lib/history.lua: a job's history (core's history/job-history.ts), one line per transition, appended by the
script that makes the transition, so a line exists exactly for each change that happened.
  P:{q}:h:<id>  list: the job's lines, oldest first, at most HISTORY_MAX (RPUSH; past it the oldest is popped)
  P:{q}:hdrop   hash: id -> lines popped past the bound (only jobs that ever passed it have a field)
  P:{q}:meta    field hist_off '1': the queue opts out (its configuration's history: false, queue-config-set.lua);
                its jobs' transitions append nothing. Read once per queue per script call (hist_on).
Both follow the job: renamed with it to another queue, deleted with it (job_remove). A line is
  at|from|to|trigger|attempt|wlen|worker[|reason]
from '' for an insert; wlen the byte length of worker_id ('' when the job has none), so a worker id may hold
'|'; the reason, when there is one, is the rest of the line after the '|' that follows the worker (codec.ts
decodeHistoryLine). One RPUSH of a short text per transition: the hot path's whole cost.
Needs nothing but the prefix and a queue's key base, so the short ways of job-claim and job-insert use it. ]]

-- The line of a transition; `worker` '' or false when none, `reason` nil or false when none.
local function hist_line(at, from, to, trigger, attempt, worker, reason)
  local line = at .. '|' .. from .. '|' .. to .. '|' .. trigger .. '|' .. attempt .. '|'
  if worker and worker ~= '' then line = line .. #worker .. '|' .. worker else line = line .. '|' end
  if reason then line = line .. '|' .. reason end
  return line
end

-- The line of an insert of a job whose '@h' (the last pair of its record, codec.ts encodeStoredJob) is `hot`:
-- attempt and worker_id are its second and last fields (lib/hot.lua).
local HIST_WORKER = '^' .. string.rep('[^|]*|', HOT_COUNT - 1) .. '(.*)$'
local function hist_insert_line(hot, nowIso, state)
  local attempt = string.match(hot, '^[^|]*|([^|]*)') or '0'
  -- a new job mostly has no worker: '@h' then ends with the '|' before an empty worker_id
  local worker = string.byte(hot, -1) ~= 124 and string.match(hot, HIST_WORKER)
  return hist_line(nowIso, '', state, TRIGGER.insert, attempt ~= '' and attempt or '0', worker)
end

-- Whether the queue whose key base is `base` records history, by key base: read once per script call and
-- queue (HEXISTS of its meta), or seeded by a caller that already read the queue's meta (job-claim.lua).
local HIST_ON = {}
local function hist_on(base)
  local on = HIST_ON[base]
  if on == nil then
    on = redis.call('HEXISTS', base .. 'meta', 'hist_off') == 0
    HIST_ON[base] = on
  end
  return on
end

-- Appends `line` to the history of job `id` of the queue whose key base is `base` (P:{q}:), whose opt-out
-- the caller checked (the hot paths look it up once per queue, not per job: a Lua call costs ~300 instructions).
local function hist_append(base, id, line)
  if redis.call('RPUSH', base .. 'h:' .. id, line) > HISTORY_MAX then
    redis.call('LPOP', base .. 'h:' .. id)
    redis.call('HINCRBY', base .. 'hdrop', id, 1)
  end
end

-- Appends `line` to the history of job `id` of the queue whose key base is `base`, unless that queue opts out
-- (a table lookup once the queue is known: hist_append's body, not a call of it, for the inserts' per-job pushes).
local function hist_push(base, id, line)
  local on = HIST_ON[base]
  if on == nil then on = hist_on(base) end
  if on and redis.call('RPUSH', base .. 'h:' .. id, line) > HISTORY_MAX then
    redis.call('LPOP', base .. 'h:' .. id)
    redis.call('HINCRBY', base .. 'hdrop', id, 1)
  end
end

-- Moves job `id`'s history from the queue at key base `from` to the one at `to` (the job moved queues).
local function hist_move(from, to, id)
  if redis.call('EXISTS', from .. 'h:' .. id) == 1 then redis.call('RENAME', from .. 'h:' .. id, to .. 'h:' .. id) end
  local dropped = redis.call('HGET', from .. 'hdrop', id)
  if dropped then
    redis.call('HDEL', from .. 'hdrop', id)
    redis.call('HSET', to .. 'hdrop', id, dropped)
  end
end

-- Deletes job `id`'s history (the job is deleted).
local function hist_delete(base, id)
  redis.call('DEL', base .. 'h:' .. id)
  redis.call('HDEL', base .. 'hdrop', id)
end
