-- queueConfigList: every configured queue's configuration.
-- Params:   none
-- Returns:  config (jsonb), by name.
-- Transition: none.
SELECT config FROM {{schema}}.queues WHERE config IS NOT NULL ORDER BY name
