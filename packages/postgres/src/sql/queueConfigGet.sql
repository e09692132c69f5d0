-- queueConfigGet: one queue's configuration.
-- Params:   $1 name text
-- Returns:  config (jsonb; no row, or a null config, when never configured).
-- Transition: none.
SELECT config FROM {{schema}}.queues WHERE name = $1 AND config IS NOT NULL
