--[[ job-transition-many.lua: Driver.jobTransitionMany. Independent guarded compare-and-sets in one round trip
(batched acks): each op succeeds or fails on its own.
KEYS: none (spans the queues of the jobs named).
ARGV: (packed as one JSON array) P, nOps, then nOps ops (see lib/transition.lua).
Returns (as JSON): one result per op, in op order, shaped as job-transition.lua's.
Transition: per op, as job-transition.lua. ]]
--!include lib/generated.lua
--!include lib/keys.lua
--!include lib/indexes.lua
--!include lib/transition.lua

local n = tonumber(ARGS[2])
local out = {}
local i = 3
for k = 1, n do
  out[k], i = transition(i)
end
return cjson.encode(out)
