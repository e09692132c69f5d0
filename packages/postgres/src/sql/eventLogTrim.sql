-- eventLogTrim: keeps about the newest $1 rows of the event log.
-- Params:   $1 keep bigint
-- Returns:  trimmed (int).
-- Transition: none.
WITH gone AS (
  DELETE FROM {{schema}}.event_log
  WHERE seq <= (SELECT max(seq) FROM {{schema}}.event_log) - $1::bigint
  RETURNING 1
)
SELECT count(*)::int AS trimmed FROM gone
