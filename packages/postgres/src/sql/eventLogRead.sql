-- eventLogRead: rows of the event log after a sequence number and written at or after a time, oldest first.
-- Params:   $1 after bigint (seq > after), $2 since float8 (at >= since, epoch ms), $3 limit int
-- Returns:  seq, payload.
-- Transition: none.
SELECT seq, payload FROM {{schema}}.event_log
WHERE seq > $1::bigint AND at >= $2::float8
ORDER BY seq
LIMIT $3::int
