-- jobInsert.queueDepths: the backlog of each named queue (backpressure), read under jobInsert.lockQueues.
-- Params:   $1 queue names text[]
-- Returns:  queue, depth (int): jobs in the backlog states ({{backlog_states}}); queues with none are absent.
-- Transition: none. Only the unfinished table holds backlog states.
SELECT queue, count(*)::int AS depth FROM {{schema}}.jobs
WHERE queue = ANY ($1::text[]) AND state IN ({{backlog_states}})
GROUP BY queue
