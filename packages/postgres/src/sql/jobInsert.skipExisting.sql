-- jobInsert.skipExisting: as jobInsert, but a row whose id exists is skipped (workflow re-drives).
-- Params:   $1 rows jsonb (as jobInsert), $2 now_iso text
-- Returns:  id of each stored row.
-- Transition: (new) → the state of each row.
WITH rows AS (
  SELECT * FROM jsonb_to_recordset($1::jsonb) AS r({{job_record}})
),
new_queues AS (
  INSERT INTO {{schema}}.queues (name, created_at)
  SELECT DISTINCT queue, $2::text FROM rows
  ON CONFLICT (name) DO NOTHING
)
INSERT INTO {{schema}}.jobs ({{job_insert_columns}}, seq)
SELECT {{job_insert_values}}, nextval('{{schema}}.job_seq') FROM rows r
ON CONFLICT (id) DO NOTHING
RETURNING id
