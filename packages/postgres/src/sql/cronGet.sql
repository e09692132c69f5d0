-- cronGet: one cron.
-- Params:   $1 name text
-- Returns:  doc (no row when unknown).
-- Transition: none.
SELECT doc FROM {{schema}}.crons WHERE name = $1
