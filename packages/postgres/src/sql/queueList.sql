-- queueList: every known queue, by name.
-- Params:   none.
-- Returns:  name, paused, created_at, paused_at, resumed_at.
-- Transition: none.
SELECT name, paused, created_at, paused_at, resumed_at FROM {{schema}}.queues ORDER BY name
