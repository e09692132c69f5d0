--[[ job-list.lua: Driver.jobList. Read only. Newest first by id (lexicographic, descending).
KEYS: none (one queue's indexes, or every queue's).
ARGV: P, queue|'', state|'', type|'', deadLetter ('1'|'0'|''), limit, offset, createdFrom|'', createdBefore|''
(created_at ≥ createdFrom and < createdBefore, compared as text: the engine stamps created_at in one format).
Returns: {total, page}: total matches, then HGETALL of each job of the page.
Cost: the ids of the chosen indexes are read and sorted (O(n log n) in the jobs of the queues listed, plus
one HMGET per id when a type, dead-letter or shared-index state filter applies). An admin listing, not a hot
path; retention keeps n bounded.
Transition: none. ]]
--!include lib/generated.lua
--!include lib/anchor.lua
--!include lib/keys.lua
--!include lib/indexes.lua

local queue, state, jtype, dl = ARGS[2], ARGS[3], ARGS[4], ARGS[5]
local limit, offset = tonumber(ARGS[6]), tonumber(ARGS[7])
local from, before = ARGS[8] or '', ARGS[9] or ''
local queues
if queue ~= '' then queues = { queue } else queues = redis.call('SMEMBERS', QUEUES) end

-- Which indexes hold the candidates, and whether each candidate's state must be checked.
local sources, checkState = {}, false
if state ~= '' then
  if state == STATE.deadLetter then
    if dl ~= '0' then sources[#sources + 1] = 'dl' end
    if dl ~= '1' then sources[#sources + 1] = 'fin' end
    checkState = dl ~= '1'
  elseif dl == '1' then
    sources = {}
  else
    sources = { index_name(state, false) }
    checkState = DUE[state] or TERMINAL[state] or false
  end
elseif dl == '1' then
  sources = { 'dl' }
else
  -- every index once: together they hold every job
  local seen = {}
  for _, s in ipairs(STATES) do
    local name = index_name(s, false)
    if not seen[name] then
      seen[name] = true
      sources[#sources + 1] = name
    end
  end
  if dl == '' then sources[#sources + 1] = 'dl' end
end

local candidates = {}
for _, q in ipairs(queues) do
  for _, set in ipairs(sources) do
    for _, id in ipairs(redis.call('ZRANGE', qkey(q, set), 0, -1)) do
      if id ~= ACTIVE_ANCHOR then candidates[#candidates + 1] = { id, q } end
    end
  end
end

local ids = candidates
local LIST_FILTER = { 'state', 'type', '@deadLetter' }
-- '@e' holds args too: read only when a time range needs its created_at
if from ~= '' or before ~= '' then LIST_FILTER[4] = '@e' end
if checkState or jtype ~= '' or dl == '0' or from ~= '' or before ~= '' then
  ids = {}
  for _, c in ipairs(candidates) do
    local f = job_read(jkey(c[2], c[1]), LIST_FILTER) or {}
    -- created_at is the first key of the sealed field '@e' (codec.ts), so the anchored match cannot land in user data
    local created = (from ~= '' or before ~= '') and string.match(f['@e'] or '', '^{"created_at":"([^"]*)"') or ''
    if (not checkState or f.state == state) and (jtype == '' or f.type == jtype) and (dl ~= '0' or f['@deadLetter'] ~= '1')
      and (from == '' or created >= from) and (before == '' or created < before) then
      ids[#ids + 1] = c
    end
  end
end
table.sort(ids, function(a, b) return a[1] > b[1] end)
local page = {}
for k = offset + 1, math.min(offset + limit, #ids) do
  page[#page + 1] = redis.call('HGETALL', jkey(ids[k][2], ids[k][1]))
end
return { #ids, page }
