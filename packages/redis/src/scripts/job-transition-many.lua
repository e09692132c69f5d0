--[[ job-transition-many.lua: Driver.jobTransitionMany. Independent guarded compare-and-sets in one round trip
(batched acks): each op succeeds or fails on its own.
KEYS: none (spans the queues of the jobs named).
ARGV: (packed as one JSON array) P, then a batch of ops (shapes, then ops; see lib/transition.lua).
Returns (as JSON): one result per op, in op order, shaped as job-transition.lua's.
Transition: per op, as job-transition.lua. Index writes are collected and applied once per key at the end. ]]
--!include lib/generated.lua
--!include lib/keys.lua
--!include lib/indexes.lua
--!include lib/transition.lua

idx_defer()
local out = transition_batch(2)
idx_flush()
return cjson.encode(out)
