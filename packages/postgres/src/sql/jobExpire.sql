-- jobExpire: discards waiting jobs whose expires_at has passed.
-- Params:   $1 now float8, $2 now_iso text, $3 limit int
-- Returns:  the expired jobs' columns ({{job_columns}}).
-- Transitions: scheduled | available | retryable → discarded (discarded_at, expired_at = now, x.finishedAt)
WITH gone AS (
  SELECT e.id FROM {{schema}}.jobs e
  WHERE e.x_expires_at IS NOT NULL AND e.state IN ({{expirable_states}}) AND e.x_expires_at < $1::float8
  ORDER BY e.x_expires_at
  LIMIT $3
  FOR UPDATE SKIP LOCKED
)
UPDATE {{schema}}.jobs j SET
  {{expire_set}},
  prev_state = j.state
FROM gone g
WHERE j.id = g.id AND j.state IN ({{expirable_states}})
RETURNING {{job_envelope_columns_j}}
