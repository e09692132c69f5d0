-- cronDelete: removes a cron.
-- Params:   $1 name text
-- Returns:  doc of the removed cron (no row when unknown).
-- Transition: none.
DELETE FROM {{schema}}.crons WHERE name = $1 RETURNING doc
