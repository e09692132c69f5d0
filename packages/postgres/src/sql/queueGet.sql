-- queueGet: one queue.
-- Params:   $1 name text
-- Returns:  name, paused, created_at, paused_at, resumed_at (no row when unknown).
-- Transition: none.
SELECT name, paused, created_at, paused_at, resumed_at FROM {{schema}}.queues WHERE name = $1
