-- eventNotify: sends one control message (presence hello or answer) on the schema's channel; not logged.
-- Params:   $1 channel text, $2 message text.
-- Returns:  one row.
-- Transition: none.
SELECT pg_notify($1::text, $2::text)
