-- jobInsert.lockQueues: serialises bounded inserts into the same queues (backpressure), for the transaction.
-- Params:   $1 schema name text (scopes the lock keys), $2 queue names text[] (sorted: a fixed lock order)
-- Returns:  nothing useful (one row per lock taken).
-- Transition: none. Claims, completions and failures take no such lock: they only shrink a queue's backlog
--           (a failure moving an active job back to retryable may grow it past the bound; bounds limit producers).
SELECT pg_advisory_xact_lock(hashtextextended('ojskit:queue-depth:' || $1 || ':' || q, 0)) FROM unnest($2::text[]) AS q
