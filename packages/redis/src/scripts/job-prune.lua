--[[ job-prune.lua: Driver.jobPrune. Retention: deletes finished jobs.
KEYS: none (spans every queue in P:queues, or the one named).
ARGV: P, before, limit, deadLetter ('0' leave dead-lettered jobs, '1' include them, 'only' nothing else),
      state|'' (only jobs in this terminal state), queue|'' (only this queue), then the queues to leave out.
Returns: how many jobs were deleted.
Transition: completed|cancelled|discarded with @finishedAt < before -> deleted (hash, indexes, directory
  and unique membership).
A state filter reads each job's state from its '@h' (the fin index holds every plain terminal state by finish
time): jobs of other states finished before `before` are stepped over, at most SCAN_CAP of them a call (the
pruner's state calls fall between the longest retention and their own, where few such jobs are). ]]
--!include lib/generated.lua
--!include lib/keys.lua
--!include lib/indexes.lua

local before, limit, dl, state, only = tonumber(ARGS[2]), tonumber(ARGS[3]), ARGS[4], ARGS[5] or '', ARGS[6] or ''
local SCAN_CAP = 100000
local CHUNK = 1000
local deleted, scanned = 0, 0
local STATE_READ = '^' .. string.rep('[^|]*|', HOT_AT.state - 1) .. '([^|]*)|'
local sets = {}
if dl ~= 'only' then sets[#sets + 1] = 'fin' end
if dl == '1' or dl == 'only' then sets[#sets + 1] = 'dl' end

local queues
if only ~= '' then queues = { only }
else
  local skip = {}
  for i = 7, #ARGS do skip[ARGS[i]] = true end
  queues = {}
  for _, q in ipairs(redis.call('SMEMBERS', QUEUES)) do
    if not skip[q] then queues[#queues + 1] = q end
  end
end

local function remove(q, set, id)
  job_remove(q, id, jkey(q, id))
  redis.call('ZREM', qkey(q, set), id) -- in case the hash was already gone
  deleted = deleted + 1
end

for _, q in ipairs(queues) do
  for _, set in ipairs(sets) do
    if deleted >= limit then return deleted end
    local key = qkey(q, set)
    if state == '' then
      local ids = redis.call('ZRANGEBYSCORE', key, '-inf', '(' .. ARGS[2], 'LIMIT', 0, limit - deleted)
      for _, id in ipairs(ids) do remove(q, set, id) end
    else
      -- kept: jobs of other states stepped over, ahead of the next chunk
      local kept = 0
      while deleted < limit and scanned < SCAN_CAP do
        local ids = redis.call('ZRANGEBYSCORE', key, '-inf', '(' .. ARGS[2], 'LIMIT', kept, CHUNK)
        if #ids == 0 then break end
        scanned = scanned + #ids
        for _, id in ipairs(ids) do
          if deleted >= limit then break end
          local hot = redis.call('HGET', jkey(q, id), '@h')
          if not hot or string.match(hot, STATE_READ) == state then remove(q, set, id) else kept = kept + 1 end
        end
      end
    end
  end
end
return deleted
