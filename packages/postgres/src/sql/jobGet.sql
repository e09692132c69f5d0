-- jobGet: one job with its internals.
-- Params:   $1 id text
-- Returns:  doc, x (no row when unknown).
-- Transition: none.
SELECT doc, x FROM {{schema}}.jobs WHERE id = $1
