-- jobPromote: moves due scheduled/retryable jobs of every queue (paused ones too) to available.
-- Params:   $1 now float8, $2 now_iso text, $3 limit int
-- Returns:  from_state and the job's columns after the move ({{job_columns}}).
-- Transitions: scheduled | retryable → available (enqueued_at = now, new FIFO seq)
--              scheduled | retryable → discarded (past x.expiresAt: discarded_at, expired_at, x.finishedAt)
WITH due AS (
  SELECT d.id, COALESCE(d.x_expires_at < $1::float8, false) AS expired
  FROM {{schema}}.jobs d
  WHERE d.state IN ({{due_states}}) AND d.x_due_at <= $1::float8
  ORDER BY d.x_due_at
  LIMIT $3
  FOR UPDATE SKIP LOCKED
)
UPDATE {{schema}}.jobs j SET
  {{promote_set}},
  seq = CASE WHEN d.expired THEN j.seq ELSE nextval('{{schema}}.job_seq') END,
  prev_state = j.state
FROM due d
WHERE j.id = d.id AND j.state IN ({{due_states}})
RETURNING j.prev_state AS from_state, {{job_envelope_columns_j}}
