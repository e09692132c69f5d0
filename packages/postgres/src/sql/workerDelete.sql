-- workerDelete: forgets a worker.
-- Params:   $1 id text
-- Returns:  nothing.
-- Transition: none.
DELETE FROM {{schema}}.workers WHERE id = $1
