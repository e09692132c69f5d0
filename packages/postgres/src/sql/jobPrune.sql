-- jobPrune: deletes finished jobs older than the retention horizon, oldest first.
-- Params:   $1 before float8 (x.finishedAt < before), $2 limit int, $3 dead_letter bool (also prune
--           dead-lettered jobs)
-- Returns:  pruned (int).
-- Transition: none (terminal rows are deleted). Also drops overflowed events older than the horizon.
WITH doomed AS (
  SELECT id FROM {{schema}}.jobs
  WHERE state IN ({{terminal_states}}) AND x_finished_at < $1::float8
    AND ($3::boolean OR x_dead_letter IS NOT TRUE)
  ORDER BY x_finished_at
  LIMIT $2
  FOR UPDATE SKIP LOCKED
),
gone AS (
  DELETE FROM {{schema}}.jobs j USING doomed d WHERE j.id = d.id RETURNING 1
),
old_events AS (
  DELETE FROM {{schema}}.event_overflow WHERE at < $1::float8
)
SELECT count(*)::int AS pruned FROM gone
