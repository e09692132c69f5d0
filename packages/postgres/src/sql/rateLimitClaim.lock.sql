-- rateLimitClaim.lock: locks the rate_limits rows of a limited claim until its transaction ends.
-- Params:   $1 names text[] (rateLimitClaim.names)
-- Returns:  name, last_claim_at of each row, and now: the database clock (ms), the one spacing is measured with.
-- Transition: none. FOR UPDATE in name order: concurrent limited claims of the same queues or keys queue up here.
SELECT r.name, r.last_claim_at, extract(epoch FROM clock_timestamp())::float8 * 1000 AS now
FROM {{schema}}.rate_limits r
WHERE r.name = ANY ($1::text[])
ORDER BY r.name
FOR UPDATE
