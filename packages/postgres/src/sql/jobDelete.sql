-- jobDelete: removes a job, unfinished or finished, while its guards hold.
-- Params:   $1 id text, $2 states text[]|null (allowed current states), $3 dead_letter bool|null
-- Returns:  the removed job's columns ({{job_columns}}); no row when nothing was removed.
-- Transition: none (the row is gone).
WITH hot AS (
  DELETE FROM {{schema}}.jobs
  WHERE id = $1
    AND ($2::text[] IS NULL OR state = ANY ($2::text[]))
    AND ($3::boolean IS NULL OR COALESCE(x_dead_letter, false) = $3)
  RETURNING {{job_columns}}
),
finished AS (
  DELETE FROM {{schema}}.jobs_finished
  WHERE id = $1
    AND ($2::text[] IS NULL OR state = ANY ($2::text[]))
    AND ($3::boolean IS NULL OR COALESCE(x_dead_letter, false) = $3)
  RETURNING {{job_columns}}
)
SELECT * FROM hot UNION ALL SELECT * FROM finished
