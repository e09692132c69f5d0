--[[ lib/hot.lua: a job's packed hash field '@h'. The fields HOT lists (generated from codec.ts; HOT_AT maps each
to its position) live inside it,
in that order, joined by '|' (empty: absent; the last, worker_id, is the rest of the text and may hold '|');
every other field of a job is a hash field of its own. A claim or an ACK then reads and rewrites one field
where it would rewrite six. Every read or write of a job's fields by name goes through job_read / job_write,
which route each field; HGETALL replies carry '@h' as it is (codec.ts unpacks it).
Requires lib/generated.lua and lib/keys.lua. ]]

local NHOT = #HOT
local HOT_PATTERN = '^' .. string.rep('([^|]*)|', NHOT - 1) .. '(.*)$'

-- The values of a packed '@h', by position ('' when absent). One pattern: NHOT plain finds and subs cost twice
-- as much (Lua calls), but the pattern tests a character class per byte, so a split costs by the length of
-- '@h' (~1.8 µs for an active job's ~150 bytes).
local function hot_split(h)
  return { string.match(h, HOT_PATTERN) }
end

local function hot_join(hv)
  return table.concat(hv, '|', 1, NHOT)
end

-- Reads `fields` (names) of the job at `jk`: returns a table name -> value (false when absent) and the split
-- '@h' (for job_write), or nil when the job does not exist. One HMGET whatever the fields.
local function job_read(jk, fields)
  local ask = { '@h' }
  for _, f in ipairs(fields) do
    if not HOT_AT[f] then ask[#ask + 1] = f end
  end
  local r = redis.call('HMGET', jk, unpack(ask))
  if not r[1] then return nil end
  local hv = hot_split(r[1])
  local v = {}
  local c = 1
  for _, f in ipairs(fields) do
    local at = HOT_AT[f]
    if at then
      local x = hv[at]
      v[f] = x ~= '' and x
    else
      c = c + 1
      v[f] = r[c]
    end
  end
  return v, hv
end

-- Splits writes by where each field lives: `packed`, position/value pairs for '@h' (the state `to` first, when
-- given); `own`, HSET arguments for fields of their own, ending with the pair '@h', false when anything is
-- packed (apply_writes fills in its value); `drop`, HDEL arguments. `set` is a flat name/value list, `del` a
-- list of names. A batch splits its shared writes once and applies them per job.
local function split_writes(set, del, to)
  local packed, own, drop = {}, {}, {}
  if to then
    packed[1] = HOT_AT.state
    packed[2] = to
  end
  for k = 1, #set, 2 do
    local at = HOT_AT[set[k]]
    if at then
      packed[#packed + 1] = at
      packed[#packed + 1] = set[k + 1]
    else
      own[#own + 1] = set[k]
      own[#own + 1] = set[k + 1]
    end
  end
  for k = 1, #del do
    local at = HOT_AT[del[k]]
    if at then
      packed[#packed + 1] = at
      packed[#packed + 1] = ''
    else
      drop[#drop + 1] = del[k]
    end
  end
  if #packed > 0 then
    own[#own + 1] = '@h'
    own[#own + 1] = false
  end
  return packed, own, drop
end

-- Applies split writes to the job at `jk`. `hv` is the job's split '@h' when the caller read it (job_read),
-- else nil: it is then read here if a packed field changes. Returns the split '@h' (nil when untouched).
local function apply_writes(jk, packed, own, drop, hv)
  if #packed > 0 then
    if not hv then hv = hot_split(redis.call('HGET', jk, '@h')) end
    for k = 1, #packed, 2 do hv[packed[k]] = packed[k + 1] end
    own[#own] = hot_join(hv)
  end
  if #own > 0 then redis.call('HSET', jk, unpack(own)) end
  if #drop > 0 then redis.call('HDEL', jk, unpack(drop)) end
  return hv
end

-- Writes fields of the job at `jk`: `set` a flat name/value list, `del` a list of names, `hv` as for
-- apply_writes.
local function job_write(jk, set, del, hv)
  local packed, own, drop = split_writes(set, del)
  return apply_writes(jk, packed, own, drop, hv)
end
