-- eventPublish: sends event batches on the schema's channel, in array order. Inside a caller's transaction
-- the notifications are delivered only if it commits.
-- Params:   $1 channel text, $2 payloads text[] (each a JSON array shorter than 8000 bytes)
-- Returns:  one row per payload.
-- Transition: none.
SELECT pg_notify($1::text, payload) FROM unnest($2::text[]) AS payload
