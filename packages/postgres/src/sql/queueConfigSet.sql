-- queueConfigSet: stores a queue's configuration, creating the queue when needed.
-- Params:   $1 name text, $2 config jsonb, $3 now_iso text (created_at of a new queue)
-- Returns:  config (jsonb).
-- Transition: none (the engine reads the bounds and hands them to jobInsert).
INSERT INTO {{schema}}.queues (name, created_at, config) VALUES ($1, $3, $2::jsonb)
ON CONFLICT (name) DO UPDATE SET config = EXCLUDED.config
RETURNING config
