-- eventListenerJoin: marks this LISTEN session as one of the schema's event listeners, for as long as it lives.
-- Params:   $1 key text (`ojskit:listen:<schema>`).
-- Returns:  one row.
-- Transition: none. A shared session-level advisory lock: any number of sessions hold it at once, and the
--           server drops it when the session ends, crashes included, so eventListenerCount never counts a
--           listener that is gone.
SELECT pg_advisory_lock_shared(hashtextextended($1::text, 0))
