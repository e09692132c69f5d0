-- jobInsert.skipExisting: as jobInsert, but a row whose id exists (unfinished or finished) is skipped
-- (workflow re-drives).
-- Params:   $1 now_iso text, $2… the column arrays (as jobInsert)
-- Returns:  id of each stored row.
-- Transition: (new) → the state of each row (finished rows go to jobs_finished).
WITH rows AS (
  SELECT * FROM {{job_unnest}}
  -- Probes per row (see jobInsert.sql's clash): never a scan of each partition per row.
  WHERE (SELECT true FROM {{schema}}.jobs_finished f WHERE f.id = r.id LIMIT 1) IS NULL
),
new_queues AS (
  INSERT INTO {{schema}}.queues (name, created_at)
  SELECT DISTINCT queue, $1::text FROM rows
  ON CONFLICT (name) DO NOTHING
),
finished AS (
  INSERT INTO {{schema}}.jobs_finished ({{job_insert_columns}}, seq)
  SELECT {{job_unnest_values}}, nextval('{{schema}}.job_seq') FROM rows r
  WHERE r.state IN ({{terminal_states}})
    AND (SELECT true FROM {{schema}}.jobs h WHERE h.id = r.id) IS NULL
  RETURNING id
),
unfinished AS (
  INSERT INTO {{schema}}.jobs ({{job_insert_columns}}, seq)
  SELECT {{job_unnest_values}}, nextval('{{schema}}.job_seq') FROM rows r
  WHERE r.state NOT IN ({{terminal_states}})
  ON CONFLICT (id) DO NOTHING
  RETURNING id
)
SELECT id FROM unfinished UNION ALL SELECT id FROM finished
