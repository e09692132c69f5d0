-- jobInsert: stores new jobs and registers their queues, in ONE statement (all rows or none).
-- Params:   $1 rows jsonb: [{ id, doc, x, args, meta, result }] (doc without args/meta/result, which
--           travel as JSON text so they are stored verbatim) in insert order, $2 now_iso text (created_at of new queues)
-- Returns:  nothing. A duplicate id fails the statement with unique_violation on jobs_pkey; the driver then
--           finds which job clashed (jobInsert.findConflicts.sql) and reports `duplicate_id`.
-- Transition: (new) → the state in each doc; each job draws a FIFO seq in insert order.
WITH rows AS (
  SELECT r.id, r.doc, r.x, r.args::json AS args, r.meta::json AS meta, r.result::json AS result
  FROM jsonb_to_recordset($1::jsonb) AS r(id text, doc jsonb, x jsonb, args text, meta text, result text)
),
new_queues AS (
  INSERT INTO {{schema}}.queues (name, created_at)
  SELECT DISTINCT doc->>'queue', $2::text FROM rows
  ON CONFLICT (name) DO NOTHING
)
INSERT INTO {{schema}}.jobs (id, doc, x, args, meta, result, seq)
SELECT id, doc, x, args, meta, result, nextval('{{schema}}.job_seq') FROM rows
