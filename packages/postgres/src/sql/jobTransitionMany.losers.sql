-- jobTransitionMany.losers: the current state of jobs whose guarded transition failed.
-- Params:   $1 ids text[]
-- Returns:  the job's columns ({{job_columns}}); no row: no such job.
-- Transition: none (read only; run as its own statement so it sees whatever beat the transition).
SELECT {{job_columns}} FROM {{schema}}.jobs WHERE id = ANY ($1::text[])
UNION ALL
SELECT {{job_columns}} FROM {{schema}}.jobs_finished WHERE id = ANY ($1::text[])
