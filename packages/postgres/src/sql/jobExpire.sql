-- jobExpire: discards waiting jobs whose expires_at has passed; they leave the hot table.
-- Params:   $1 now float8, $2 now_iso text, $3 limit int
-- Returns:  the expired jobs' envelope columns ({{job_envelope_columns}}).
-- Transitions: scheduled | available | retryable → discarded (discarded_at, expired_at = now, x.finishedAt):
--           deleted from jobs, inserted into jobs_finished, in this statement.
WITH params AS (
  SELECT $1::float8 AS now_ms, $2::text AS now_iso
),
gone AS (
  SELECT e.id FROM {{schema}}.jobs e
  WHERE e.x_expires_at IS NOT NULL AND e.state IN ({{expirable_states}}) AND e.x_expires_at < $1::float8
  ORDER BY e.x_expires_at
  LIMIT $3
  FOR UPDATE SKIP LOCKED
),
leaving AS (
  DELETE FROM {{schema}}.jobs j USING gone e
  WHERE j.id = e.id AND j.state IN ({{expirable_states}})
  RETURNING j.*
),
moved AS (
  INSERT INTO {{schema}}.jobs_finished AS j ({{table_columns}})
  SELECT {{expire_move_values}} FROM leaving g, params p
  RETURNING {{job_envelope_columns_j}}
)
SELECT * FROM moved
