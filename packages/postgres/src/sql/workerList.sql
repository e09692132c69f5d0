-- workerList: every worker record.
-- Params:   none.
-- Returns:  directive, doc.
-- Transition: none.
SELECT directive, doc FROM {{schema}}.workers ORDER BY id
