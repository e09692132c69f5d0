-- jobInsert.findConflicts: the stored jobs, unfinished or finished, an insert may clash with.
-- Params:   $1 ids text[] (ids of the batch), $2 keys text[] (unique keys of the batch)
-- Returns:  by_id (true: the id is taken; false: holds one of the keys) and the job's columns; key holders
--           oldest first.
-- Transition: none (read only; the caller holds the key locks).
SELECT true AS by_id, {{job_columns}} FROM {{schema}}.jobs WHERE id = ANY ($1::text[])
UNION ALL
SELECT true AS by_id, {{job_columns}} FROM {{schema}}.jobs_finished WHERE id = ANY ($1::text[])
UNION ALL
(SELECT false, {{job_columns}} FROM (
   SELECT * FROM {{schema}}.jobs WHERE x_unique_key = ANY ($2::text[])
   UNION ALL
   SELECT * FROM {{schema}}.jobs_finished WHERE x_unique_key = ANY ($2::text[])
 ) AS holders ORDER BY id)
