--[[ job-list.lua: Driver.jobList. Read only. Newest first by id (lexicographic, descending).
KEYS: none (one queue's P:{q}:s:<state> sets, or every queue's).
ARGV: P, queue|'', state|'', type|'', deadLetter ('1'|'0'|''), limit, offset.
Returns: {total, page}: total matches, then HGETALL of each job of the page.
Without type/deadLetter filters only offset + limit ids are read per set; with them every id of the chosen
sets is examined (admin listing, not a hot path).
Transition: none. ]]
--!include lib/generated.lua
--!include lib/keys.lua

local queue, state, jtype, dl = ARGV[2], ARGV[3], ARGV[4], ARGV[5]
local limit, offset = tonumber(ARGV[6]), tonumber(ARGV[7])
local queues
if queue ~= '' then queues = { queue } else queues = redis.call('SMEMBERS', QUEUES) end
local states
if state ~= '' then states = { state } elseif dl == '1' then states = { 'discarded' } else states = STATES end
local filtered = jtype ~= '' or dl ~= ''

local total = 0
local ids = {}
for _, q in ipairs(queues) do
  for _, s in ipairs(states) do
    local set = qkey(q, 's:' .. s)
    if filtered then
      for _, id in ipairs(redis.call('ZRANGE', set, 0, -1)) do
        local f = redis.call('HMGET', jkey(q, id), 'type', '@deadLetter')
        if (jtype == '' or f[1] == jtype) and (dl == '' or (f[2] == '1') == (dl == '1')) then
          total = total + 1
          ids[#ids + 1] = { id, q }
        end
      end
    else
      total = total + redis.call('ZCARD', set)
      if offset + limit > 0 then
        for _, id in ipairs(redis.call('ZREVRANGEBYLEX', set, '+', '-', 'LIMIT', 0, offset + limit)) do
          ids[#ids + 1] = { id, q }
        end
      end
    end
  end
end
table.sort(ids, function(a, b) return a[1] > b[1] end)
local page = {}
for k = offset + 1, math.min(offset + limit, #ids) do
  page[#page + 1] = redis.call('HGETALL', jkey(ids[k][2], ids[k][1]))
end
return { total, page }
