-- jobExpire: discards waiting jobs whose expires_at has passed.
-- Params:   $1 now numeric, $2 now_iso text, $3 limit int
-- Returns:  doc, args, meta, result of each expired job.
-- Transitions: scheduled | available | retryable → discarded (discarded_at, expired_at = now, x.finishedAt)
WITH gone AS (
  SELECT e.id FROM {{schema}}.jobs e
  WHERE e.expires_at IS NOT NULL AND e.state IN ('scheduled', 'available', 'retryable') AND e.expires_at < $1::numeric
  ORDER BY e.expires_at
  LIMIT $3
  FOR UPDATE SKIP LOCKED
)
UPDATE {{schema}}.jobs j SET
  doc = j.doc || jsonb_build_object('state', 'discarded', 'discarded_at', $2::text, 'expired_at', $2::text),
  x = j.x || jsonb_build_object('finishedAt', $1::numeric),
  prev_state = j.state
FROM gone g
WHERE j.id = g.id AND j.state IN ('scheduled', 'available', 'retryable')
RETURNING j.doc, j.args, j.meta, j.result::text AS result
