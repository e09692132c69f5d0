-- jobGet: one job with its internals.
-- Params:   $1 id text
-- Returns:  doc, args, meta, result, x (no row when unknown).
-- Transition: none.
SELECT doc, args, meta, result::text AS result, x FROM {{schema}}.jobs WHERE id = $1
