-- jobInsert.findConflicts: the stored jobs an insert may clash with.
-- Params:   $1 ids text[] (ids of the batch), $2 keys text[] (unique keys of the batch)
-- Returns:  doc, args, meta, result, x and by_id (true: the id is taken; false: holds one of the keys), unique holders oldest first.
-- Transition: none (read only; the caller holds the key locks).
SELECT doc, args, meta, result::text AS result, x, true AS by_id FROM {{schema}}.jobs WHERE id = ANY ($1::text[])
UNION ALL
(SELECT doc, args, meta, result::text, x, false FROM {{schema}}.jobs WHERE unique_key = ANY ($2::text[]) ORDER BY id)
