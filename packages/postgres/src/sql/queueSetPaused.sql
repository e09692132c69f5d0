-- queueSetPaused: persists a queue's pause flag, creating the queue when needed. paused_at / resumed_at
-- move only when the flag changes.
-- Params:   $1 name text, $2 paused bool, $3 now_iso text
-- Returns:  the queue record.
-- Transition: none (queue state: running ↔ paused).
INSERT INTO {{schema}}.queues AS q (name, paused, created_at, paused_at)
VALUES ($1, $2::boolean, $3::text, CASE WHEN $2::boolean THEN $3::text END)
ON CONFLICT (name) DO UPDATE SET
  paused = EXCLUDED.paused,
  paused_at = CASE WHEN EXCLUDED.paused AND NOT q.paused THEN $3::text ELSE q.paused_at END,
  resumed_at = CASE WHEN NOT EXCLUDED.paused AND q.paused THEN $3::text ELSE q.resumed_at END
RETURNING name, paused, created_at, paused_at, resumed_at
