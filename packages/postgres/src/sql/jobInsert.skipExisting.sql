-- jobInsert.skipExisting: as jobInsert, but a row whose id exists (unfinished or finished) is skipped
-- (workflow re-drives).
-- Params:   $1 rows jsonb (as jobInsert), $2 now_iso text
-- Returns:  id of each stored row.
-- Transition: (new) → the state of each row (finished rows go to jobs_finished).
WITH rows AS (
  SELECT * FROM jsonb_to_recordset($1::jsonb) AS r({{job_record}})
  WHERE NOT EXISTS (SELECT 1 FROM {{schema}}.jobs_finished f WHERE f.id = r.id)
),
new_queues AS (
  INSERT INTO {{schema}}.queues (name, created_at)
  SELECT DISTINCT queue, $2::text FROM rows
  ON CONFLICT (name) DO NOTHING
),
finished AS (
  INSERT INTO {{schema}}.jobs_finished ({{job_insert_columns}}, seq)
  SELECT {{job_insert_values}}, nextval('{{schema}}.job_seq') FROM rows r
  WHERE r.state IN ({{terminal_states}})
    AND NOT EXISTS (SELECT 1 FROM {{schema}}.jobs h WHERE h.id = r.id)
  RETURNING id
),
unfinished AS (
  INSERT INTO {{schema}}.jobs ({{job_insert_columns}}, seq)
  SELECT {{job_insert_values}}, nextval('{{schema}}.job_seq') FROM rows r
  WHERE r.state NOT IN ({{terminal_states}})
  ON CONFLICT (id) DO NOTHING
  RETURNING id
)
SELECT id FROM unfinished UNION ALL SELECT id FROM finished
