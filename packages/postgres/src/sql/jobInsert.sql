-- jobInsert: stores new jobs and registers their queues, in ONE statement (all rows or none).
-- Params:   $1 now_iso text (created_at of new queues); $2… one array per column ({{job_insert_columns}}),
--           one element per job in insert order, json columns as JSON text; an empty array for a column no
--           job sets (built by job-row.ts insertColumnsOf)
-- Returns:  clash (bool): true when an id of the batch is a finished job's (jobs_finished): nothing was stored,
--           and the driver reports it as for a duplicate id. A duplicate of an unfinished job fails the
--           statement with unique_violation on jobs_pkey; the driver then finds which job clashed
--           (jobInsert.findConflicts.sql) and reports `duplicate_id`.
-- Transition: (new) → the state of each row; each job draws a FIFO seq in insert order. A row stored finished
--           (a job of the batch replaced by a later one: `cancelled`) goes to jobs_finished. Each row starts its
--           history with its insert's line (history-sql.ts; none with history off).
-- Column arrays, not a jsonb document of records: parsing the document and building its records was a third
-- of the statement's CPU (see job-columns.ts unnestDefinition).
WITH rows AS (
  SELECT * FROM {{job_unnest}}
),
-- One index probe per row and partition, as a subquery per row: planned as a join, the generic plan (which
-- guesses 10 rows for the unnest) scanned every partition once per row, or per batch.
clash AS (
  SELECT EXISTS (SELECT 1 FROM rows r WHERE (SELECT true FROM {{schema}}.jobs_finished f WHERE f.id = r.id LIMIT 1)) AS found
),
new_queues AS (
  INSERT INTO {{schema}}.queues (name, created_at)
  SELECT DISTINCT queue, $1::text FROM rows WHERE NOT (SELECT found FROM clash)
  ON CONFLICT (name) DO NOTHING
),
finished AS (
  INSERT INTO {{schema}}.jobs_finished ({{job_insert_columns}}, seq{{history_insert_column}})
  SELECT {{job_unnest_values}}, nextval('{{schema}}.job_seq'){{history_insert_value}} FROM rows r
  WHERE r.state IN ({{terminal_states}}) AND NOT (SELECT found FROM clash)
),
unfinished AS (
  INSERT INTO {{schema}}.jobs ({{job_insert_columns}}, seq{{history_insert_column}})
  SELECT {{job_unnest_values}}, nextval('{{schema}}.job_seq'){{history_insert_value}} FROM rows r
  WHERE r.state NOT IN ({{terminal_states}}) AND NOT (SELECT found FROM clash)
)
SELECT found AS clash FROM clash
