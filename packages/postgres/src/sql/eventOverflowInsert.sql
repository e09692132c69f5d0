-- eventOverflowInsert: stores events too large for a NOTIFY payload; notifications carry their ids.
-- Params:   $1 at float8[] (event times, epoch ms, for pruning), $2 payloads text[] (one event each)
-- Returns:  id per event, in input order.
-- Transition: none.
INSERT INTO {{schema}}.event_overflow (at, payload)
SELECT at, payload FROM unnest($1::float8[], $2::text[]) WITH ORDINALITY AS e(at, payload, n) ORDER BY n
RETURNING id
