-- eventPublish: appends event batches to the event log and sends each on the schema's channel, in order, with
-- its log sequence number appended (`…,"s":<seq>}`). Inside a caller's transaction both exist only if it commits.
-- Params:   $1 channel text, $2 payloads text: the payloads (each short enough to stay under 8000 bytes with
--           the sequence number) joined by the record separator U+001E, which JSON text never contains raw
--           (one text parameter travels as is; a text[] would be escaped character by character on the way).
-- Returns:  one row per payload.
-- Transition: none.
WITH logged AS (
  INSERT INTO {{schema}}.event_log (at, payload)
  SELECT extract(epoch FROM clock_timestamp()) * 1000, payload
  FROM unnest(string_to_array($2::text, chr(30))) WITH ORDINALITY AS p(payload, n)
  ORDER BY n
  RETURNING seq, payload
)
SELECT pg_notify($1::text, left(payload, -1) || ',"s":' || seq || '}') FROM logged
