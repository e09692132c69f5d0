-- jobPromote: moves due scheduled/retryable jobs of every queue (paused ones too) to available.
-- Params:   $1 now numeric, $2 now_iso text, $3 limit int
-- Returns:  state (new), from_state, doc, args, meta, result.
-- Transitions: scheduled | retryable → available (enqueued_at = now, new FIFO seq)
--              scheduled | retryable → discarded (past x.expiresAt: discarded_at, expired_at, x.finishedAt)
WITH due AS (
  SELECT d.id, COALESCE(d.expires_at < $1::numeric, false) AS expired
  FROM {{schema}}.jobs d
  WHERE d.state IN ('scheduled', 'retryable') AND d.due_at <= $1::numeric
  ORDER BY d.due_at
  LIMIT $3
  FOR UPDATE SKIP LOCKED
)
UPDATE {{schema}}.jobs j SET
  doc = CASE WHEN d.expired
          THEN j.doc || jsonb_build_object('state', 'discarded', 'discarded_at', $2::text, 'expired_at', $2::text)
          ELSE j.doc || jsonb_build_object('state', 'available', 'enqueued_at', $2::text) END,
  x = CASE WHEN d.expired THEN j.x || jsonb_build_object('finishedAt', $1::numeric) ELSE j.x END,
  seq = CASE WHEN d.expired THEN j.seq ELSE nextval('{{schema}}.job_seq') END,
  prev_state = j.state
FROM due d
WHERE j.id = d.id AND j.state IN ('scheduled', 'retryable')
RETURNING j.state, j.prev_state AS from_state, j.doc, j.args, j.meta, j.result::text AS result
