-- cronAdvance: applies a patch only while the cron's nextRunMs is the expected one: one firing per occurrence
-- even with several engines racing.
-- Params:   $1 name text, $2 expect_next_run_ms float8|null, $3 patch jsonb (name excluded)
-- Returns:  one row when applied.
-- Transition: none (compare-and-set on nextRunMs).
UPDATE {{schema}}.crons SET doc = doc || $3::jsonb
WHERE name = $1 AND next_run_ms IS NOT DISTINCT FROM $2::float8
RETURNING 1 AS advanced
