-- workflowGet: one workflow document.
-- Params:   $1 id text
-- Returns:  doc (no row when unknown).
-- Transition: none.
SELECT doc FROM {{schema}}.workflows WHERE id = $1
