-- jobInsert: stores new jobs and registers their queues, in ONE statement (all rows or none).
-- Params:   $1 rows jsonb: one record per job with every column ({{job_record}}), json columns as JSON text,
--           in insert order (built by job-row.ts); $2 now_iso text (created_at of new queues)
-- Returns:  clash (bool): true when an id of the batch is a finished job's (jobs_finished): nothing was stored,
--           and the driver reports it as for a duplicate id. A duplicate of an unfinished job fails the
--           statement with unique_violation on jobs_pkey; the driver then finds which job clashed
--           (jobInsert.findConflicts.sql) and reports `duplicate_id`.
-- Transition: (new) → the state of each row; each job draws a FIFO seq in insert order. A row stored finished
--           (a job of the batch replaced by a later one: `cancelled`) goes to jobs_finished.
-- jsonb, not json: parsed once (a json parameter is lexed when bound and again by json_to_recordset,
-- which also hashes each record's keys): about 23k fewer server instructions per job.
WITH rows AS (
  SELECT * FROM jsonb_to_recordset($1::jsonb) AS r({{job_record}})
),
-- One index probe per row and partition (an `= ANY (ids)` filter may be planned as a scan of each partition).
clash AS (
  SELECT EXISTS (SELECT 1 FROM rows r WHERE EXISTS (SELECT 1 FROM {{schema}}.jobs_finished f WHERE f.id = r.id)) AS found
),
new_queues AS (
  INSERT INTO {{schema}}.queues (name, created_at)
  SELECT DISTINCT queue, $2::text FROM rows WHERE NOT (SELECT found FROM clash)
  ON CONFLICT (name) DO NOTHING
),
finished AS (
  INSERT INTO {{schema}}.jobs_finished ({{job_insert_columns}}, seq)
  SELECT {{job_insert_values}}, nextval('{{schema}}.job_seq') FROM rows r
  WHERE r.state IN ({{terminal_states}}) AND NOT (SELECT found FROM clash)
),
unfinished AS (
  INSERT INTO {{schema}}.jobs ({{job_insert_columns}}, seq)
  SELECT {{job_insert_values}}, nextval('{{schema}}.job_seq') FROM rows r
  WHERE r.state NOT IN ({{terminal_states}}) AND NOT (SELECT found FROM clash)
)
SELECT found AS clash FROM clash
