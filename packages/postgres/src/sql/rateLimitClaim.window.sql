-- rateLimitClaim.window: records the last limited claim of each queue that made one (rows locked by
-- rateLimitClaim.lock).
-- Params:   $1 names text[] ('q:<queue>'), $2 at float8[] (ms, database clock), $3 interval_ms float8[]
-- Returns:  nothing.
-- Transition: none.
UPDATE {{schema}}.rate_limits r SET last_claim_at = u.at, interval_ms = u.interval_ms
FROM unnest($1::text[], $2::float8[], $3::float8[]) AS u(name, at, interval_ms)
WHERE r.name = u.name
