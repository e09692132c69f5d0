-- jobInsert.lockUniqueKeys: serialises inserts sharing a unique key until the end of the transaction.
-- Params:   $1 namespace text (the schema), $2 keys text[]
-- Returns:  how many keys were locked.
-- Transition: none. Locks are taken in one sorted order, so two inserts with overlapping keys cannot deadlock.
-- Checking for a blocking job and inserting the new one both happen under these locks: uniqueness is strong.
SELECT count(pg_advisory_xact_lock(hashtextextended($1::text || ':' || k, 0)))::int AS locked
FROM (SELECT DISTINCT k FROM unnest($2::text[]) AS k ORDER BY k) AS keys
