-- jobPromote: moves due scheduled/retryable jobs of every queue (paused ones too) to available.
-- Params:   $1 now float8, $2 now_iso text, $3 limit int
-- Returns:  kind ('promoted' | 'expired'), from_state and the job's envelope columns after the move.
-- Transitions: scheduled | retryable → available (enqueued_at = now, new FIFO seq)
--              scheduled | retryable → discarded (past x.expiresAt: discarded_at, expired_at, x.finishedAt;
--              deleted from jobs and inserted into jobs_finished in this statement)
WITH params AS (
  SELECT $1::float8 AS now_ms, $2::text AS now_iso
),
due AS (
  SELECT d.id, COALESCE(d.x_expires_at < $1::float8, false) AS expired
  FROM {{schema}}.jobs d
  WHERE d.state IN ({{due_states}}) AND d.x_due_at <= $1::float8
  ORDER BY d.x_due_at
  LIMIT $3
  FOR UPDATE SKIP LOCKED
),
promoted AS (
  UPDATE {{schema}}.jobs j SET
    {{promote_set}},
    seq = nextval('{{schema}}.job_seq'),
    prev_state = j.state
  FROM due d
  WHERE j.id = d.id AND NOT d.expired AND j.state IN ({{due_states}})
  RETURNING j.prev_state AS from_state, {{job_envelope_columns_j}}
),
leaving AS (
  DELETE FROM {{schema}}.jobs j USING due d
  WHERE j.id = d.id AND d.expired AND j.state IN ({{due_states}})
  RETURNING j.*
),
expired AS (
  INSERT INTO {{schema}}.jobs_finished AS j ({{table_columns}})
  SELECT {{expire_move_values}} FROM leaving g, params p
  RETURNING j.prev_state AS from_state, {{job_envelope_columns_j}}
)
SELECT 'promoted' AS kind, * FROM promoted
UNION ALL
SELECT 'expired', * FROM expired
