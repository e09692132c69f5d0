-- jobCounts: jobs per state, of one queue or of all, unfinished and finished.
-- Params:   $1 queue text|null
-- Returns:  state, n.
-- Transition: none.
SELECT state, count(*)::int AS n FROM (
  SELECT state FROM {{schema}}.jobs WHERE ($1::text IS NULL OR queue = $1)
  UNION ALL
  SELECT state FROM {{schema}}.jobs_finished WHERE ($1::text IS NULL OR queue = $1)
) AS all_jobs
GROUP BY state
