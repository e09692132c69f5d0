-- jobPrune: deletes finished jobs older than the retention horizon, oldest first.
-- Params:   $1 before numeric (x.finishedAt < before), $2 limit int, $3 dead_letter bool (also prune
--           dead-lettered jobs)
-- Returns:  pruned (int).
-- Transition: none (terminal rows are deleted). Also drops overflowed events older than the horizon.
WITH doomed AS (
  SELECT id FROM {{schema}}.jobs
  WHERE state IN ({{terminal_states}}) AND finished_at < $1::numeric AND ($3::boolean OR NOT dead_letter)
  ORDER BY finished_at
  LIMIT $2
  FOR UPDATE SKIP LOCKED
),
gone AS (
  DELETE FROM {{schema}}.jobs j USING doomed d WHERE j.id = d.id RETURNING 1
),
old_events AS (
  DELETE FROM {{schema}}.event_overflow WHERE at < $1::numeric
)
SELECT count(*)::int AS pruned FROM gone
