-- jobGet: one job.
-- Params:   $1 id text
-- Returns:  the job's columns ({{job_columns}}); no row when unknown.
-- Transition: none.
SELECT {{job_columns}} FROM {{schema}}.jobs WHERE id = $1
