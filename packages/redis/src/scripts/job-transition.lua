--[[ job-transition.lua: Driver.jobTransition. One guarded compare-and-set on one job.
KEYS: none (the job's queue is read from P:ids; the script touches P:{q}:* keys of that queue only, or of
      two queues when the op moves the job to another queue).
ARGV: (packed as one JSON array) P, then a batch of one op (one shape, one op; see lib/transition.lua).
Returns (as JSON): {1, fromState, fields} on success, {0, currentState|false, fields|nil} when the guard failed.
Transition: state in the shape's from (and the attempt / worker / visibility-deadline / dead-letter guards)
  -> its to, writing and removing the given fields and moving the job between indexes. ]]
--!include lib/generated.lua
--!include lib/keys.lua
--!include lib/indexes.lua
--!include lib/transition.lua

return cjson.encode(transition_batch(2)[1])
