-- leaseAcquire: takes or renews a named lease when it is free, expired, or already ours.
-- Params:   $1 name text, $2 owner text, $3 now float8, $4 ttl_ms float8
-- Returns:  one row when $2 holds the lease afterwards.
-- Transition: none.
INSERT INTO {{schema}}.leases AS l (name, owner, expires_at) VALUES ($1, $2, $3::float8 + $4::float8)
ON CONFLICT (name) DO UPDATE SET owner = EXCLUDED.owner, expires_at = EXCLUDED.expires_at
WHERE l.owner = EXCLUDED.owner OR l.expires_at <= $3::float8
RETURNING owner
