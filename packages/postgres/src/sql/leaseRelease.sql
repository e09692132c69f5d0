-- leaseRelease: gives a lease up, only when held by $2.
-- Params:   $1 name text, $2 owner text
-- Returns:  nothing.
-- Transition: none.
DELETE FROM {{schema}}.leases WHERE name = $1 AND owner = $2
