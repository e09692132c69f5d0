-- jobList: a page of jobs, unfinished and finished, newest first (by id: UUIDv7 ids sort by creation), and how
-- many match in all.
-- Params:   $1 queue text|null, $2 state text|null, $3 type text|null, $4 dead_letter bool|null,
--           $5 limit int, $6 offset int, $7 created_from text|null, $8 created_before text|null
--           (created_at ≥ $7 and < $8, compared as text: the engine stamps created_at in one RFC 3339 format)
-- Returns:  total (int, on every row) and the page's jobs ({{job_columns}}); a single row with a null id when
--           the page is empty.
-- Transition: none. Both tables have the same columns in the same order.
WITH matches AS (
  SELECT * FROM {{schema}}.jobs
  WHERE ($1::text IS NULL OR queue = $1)
    AND ($2::text IS NULL OR state = $2)
    AND ($3::text IS NULL OR type = $3)
    AND ($4::boolean IS NULL OR COALESCE(x_dead_letter, false) = $4)
    AND ($7::text IS NULL OR created_at COLLATE "C" >= $7) AND ($8::text IS NULL OR created_at COLLATE "C" < $8)
  UNION ALL
  SELECT * FROM {{schema}}.jobs_finished
  WHERE ($1::text IS NULL OR queue = $1)
    AND ($2::text IS NULL OR state = $2)
    AND ($3::text IS NULL OR type = $3)
    AND ($4::boolean IS NULL OR COALESCE(x_dead_letter, false) = $4)
    AND ($7::text IS NULL OR created_at COLLATE "C" >= $7) AND ($8::text IS NULL OR created_at COLLATE "C" < $8)
)
SELECT (SELECT count(*) FROM matches)::int AS total, page.*
FROM (SELECT 1) AS one
LEFT JOIN LATERAL (SELECT {{job_columns}} FROM matches ORDER BY id DESC LIMIT $5 OFFSET $6) AS page ON true
ORDER BY page.id DESC
