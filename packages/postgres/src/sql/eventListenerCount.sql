-- eventListenerCount: how many sessions listen to the schema's events (see eventListenerJoin.sql).
-- Params:   $1 key text (`ojskit:listen:<schema>`).
-- Returns:  one row: n.
-- Transition: none.
SELECT count(*)::int AS n FROM pg_locks l
 WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1
   AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
   AND l.classid = ((hashtextextended($1::text, 0) >> 32) & 4294967295)::oid
   AND l.objid = (hashtextextended($1::text, 0) & 4294967295)::oid
