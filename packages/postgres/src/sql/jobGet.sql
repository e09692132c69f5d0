-- jobGet: one job, unfinished (jobs) or finished (jobs_finished).
-- Params:   $1 id text
-- Returns:  the job's columns ({{job_columns}}); no row when unknown.
-- Transition: none. A job is in one table only; the finished table is not read when the hot one has it.
SELECT {{job_columns}} FROM {{schema}}.jobs WHERE id = $1
UNION ALL
SELECT {{job_columns}} FROM {{schema}}.jobs_finished WHERE id = $1
LIMIT 1
