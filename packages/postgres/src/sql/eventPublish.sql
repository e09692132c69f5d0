-- eventPublish: sends event batches on the schema's channel, in order. Inside a caller's transaction the
-- notifications are delivered only if it commits.
-- Params:   $1 channel text, $2 payloads text: the payloads (each shorter than 8000 bytes) joined by the
--           record separator U+001E, which JSON text never contains raw (one text parameter travels as is;
--           a text[] would be escaped character by character on the way).
-- Returns:  one row per payload.
-- Transition: none.
SELECT pg_notify($1::text, payload) FROM unnest(string_to_array($2::text, chr(30))) AS payload
