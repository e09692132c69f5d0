-- cronList: every cron, by name.
-- Params:   none.
-- Returns:  doc.
-- Transition: none.
SELECT doc FROM {{schema}}.crons ORDER BY name
