-- jobCounts: jobs per state, of one queue or of all.
-- Params:   $1 queue text|null
-- Returns:  state, n.
-- Transition: none.
SELECT state, count(*)::int AS n FROM {{schema}}.jobs
WHERE ($1::text IS NULL OR queue = $1)
GROUP BY state
