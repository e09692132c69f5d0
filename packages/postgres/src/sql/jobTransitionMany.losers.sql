-- jobTransitionMany.losers: the current state of jobs whose guarded transition failed.
-- Params:   $1 ids text[]
-- Returns:  id, state, doc, args, meta, result (JSON text), type, queue, attempt, workflow_id (no row: no such job).
-- Transition: none (read only; run as its own statement so it sees whatever beat the transition).
SELECT id, state, doc, args, meta, result::text AS result, type, queue, attempt, doc->>'workflow_id' AS workflow_id
FROM {{schema}}.jobs WHERE id = ANY ($1::text[])
