-- jobPrune: deletes, row by row, finished jobs older than the retention horizon that no dropped partition took
-- (the driver drops the day partitions wholly past the horizon first: finished-partitions.ts).
-- Params:   $1 before float8 (x.finishedAt < before), $2 limit int (per table), $3 dead_letter bool (also
--           prune dead-lettered jobs)
-- Returns:  pruned (int).
-- Transition: none (finished rows are deleted). Also drops overflowed events older than the horizon.
-- Rows of a day partition that is not wholly past the horizon stay until it is (kept up to one partition
-- width longer than the retention); the default partition holds what no day partition covers.
WITH doomed_done AS (
  SELECT id FROM {{schema}}.jobs_done_default
  WHERE x_finished_at < $1::float8
  ORDER BY x_finished_at
  LIMIT $2
  FOR UPDATE SKIP LOCKED
),
gone_done AS (
  DELETE FROM {{schema}}.jobs_done_default j USING doomed_done d WHERE j.id = d.id RETURNING 1
),
doomed_dead AS (
  SELECT id FROM {{schema}}.jobs_dead_letter
  WHERE $3::boolean AND x_finished_at < $1::float8
  ORDER BY x_finished_at
  LIMIT $2
  FOR UPDATE SKIP LOCKED
),
gone_dead AS (
  DELETE FROM {{schema}}.jobs_dead_letter j USING doomed_dead d WHERE j.id = d.id RETURNING 1
),
old_events AS (
  DELETE FROM {{schema}}.event_overflow WHERE at < $1::float8
)
SELECT ((SELECT count(*) FROM gone_done) + (SELECT count(*) FROM gone_dead))::int AS pruned
