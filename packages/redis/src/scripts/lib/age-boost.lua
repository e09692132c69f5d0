--[[ lib/age-boost.lua: the claim order of a queue with an age boost (core's priority/age-boost.ts; spec/admin.md
"Age boost"): rank = enqueued_ms - priority * interval_ms, smaller first, equal ranks by FIFO sequence. AGE_RANK
(lib/generated.lua) is core's expression rendered, HOT_ENQUEUED_AT where '@h' keeps enqueued_at. The avail index keeps its priority-then-FIFO score: within one
priority the FIFO order is also the rank order (a job's enqueued_at is stamped when it enters available, when its
sequence is drawn), so only the first jobs of each priority level compete. Needs lib/keys.lua (jkey). ]]

-- Epoch ms of the server timestamps the engine stamps ('2026-11-27T09:07:43.123Z'; toISOString), or nil.
local function iso_ms(s)
  local y, mo, d, h, mi, sec, frac = string.match(s or '', '^(%d+)-(%d+)-(%d+)T(%d+):(%d+):(%d+)%.?(%d*)Z$')
  if not y then return nil end
  y, mo, d = tonumber(y), tonumber(mo), tonumber(d)
  -- days from the civil date (H. Hinnant's algorithm, proleptic Gregorian)
  if mo <= 2 then y = y - 1 end
  local era = math.floor(y / 400)
  local yoe = y - era * 400
  local doy = math.floor((153 * ((mo + 9) % 12) + 2) / 5) + d - 1
  local days = era * 146097 + yoe * 365 + math.floor(yoe / 4) - math.floor(yoe / 100) + doy - 719468
  local ms = ((days * 24 + tonumber(h)) * 60 + tonumber(mi)) * 60000 + tonumber(sec) * 1000
  if frac ~= '' then ms = ms + tonumber(string.sub(frac .. '00', 1, 3)) end
  return ms
end

-- Ids of queue q's available jobs at positions start..stop (0-based, as ZRANGE) of the age-boost order: the
-- first stop + 1 of each priority level (an avail score is (100 - priority) * SEQ_SPAN + seq), merged by rank then
-- sequence. A job whose enqueued_at cannot be read ranks as enqueued now.
local function aged_range(q, avail, start, stop, ivl, now)
  local cands = {}
  local level = -1
  while true do
    local head = redis.call('ZRANGEBYSCORE', avail, string.format('%d', (level + 1) * SEQ_SPAN), '+inf', 'WITHSCORES', 'LIMIT', 0, 1)
    if #head == 0 then break end
    level = math.floor(tonumber(head[2]) / SEQ_SPAN)
    local priority = 100 - level
    local got = redis.call('ZRANGEBYSCORE', avail, string.format('%d', level * SEQ_SPAN), '(' .. string.format('%d', (level + 1) * SEQ_SPAN),
      'WITHSCORES', 'LIMIT', 0, stop + 1)
    for k = 1, #got, 2 do
      local hot = redis.call('HGET', jkey(q, got[k]), '@h')
      local enq = hot and iso_ms(string.match(hot, HOT_ENQUEUED_AT))
      cands[#cands + 1] = { got[k], AGE_RANK(enq or now, priority, ivl), tonumber(got[k + 1]) % SEQ_SPAN }
    end
  end
  table.sort(cands, function(a, b)
    if a[2] ~= b[2] then return a[2] < b[2] end
    return a[3] < b[3]
  end)
  local ids = {}
  for k = start + 1, math.min(stop + 1, #cands) do ids[#ids + 1] = cands[k][1] end
  return ids
end
