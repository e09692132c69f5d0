--[[ workflow-get.lua: Driver.workflowGet. Read only.
KEYS: none (P:wf:<id>).
ARGV: P, id.
Returns: the workflow document JSON, or nil.
Transition: none. ]]
--!include lib/keys.lua

return redis.call('HGET', P .. ':wf:' .. ARGS[2], 'doc')
