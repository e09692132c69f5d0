-- jobInsert: stores new jobs and registers their queues, in ONE statement (all rows or none).
-- Params:   $1 rows json: one record per job with every column ({{job_record}}), json columns as JSON text,
--           in insert order (built by job-row.ts); $2 now_iso text (created_at of new queues)
-- Returns:  nothing. A duplicate id fails the statement with unique_violation on jobs_pkey; the driver then
--           finds which job clashed (jobInsert.findConflicts.sql) and reports `duplicate_id`.
-- Transition: (new) → the state of each row; each job draws a FIFO seq in insert order.
WITH rows AS (
  SELECT * FROM json_to_recordset($1::json) AS r({{job_record}})
),
new_queues AS (
  INSERT INTO {{schema}}.queues (name, created_at)
  SELECT DISTINCT queue, $2::text FROM rows
  ON CONFLICT (name) DO NOTHING
)
INSERT INTO {{schema}}.jobs ({{job_insert_columns}}, seq)
SELECT {{job_insert_values}}, nextval('{{schema}}.job_seq') FROM rows r
