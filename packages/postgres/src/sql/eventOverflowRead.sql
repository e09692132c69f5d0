-- eventOverflowRead: events stored by eventOverflowInsert.
-- Params:   $1 ids bigint[]
-- Returns:  id, payload.
-- Transition: none.
SELECT id, payload FROM {{schema}}.event_overflow WHERE id = ANY ($1::bigint[])
