-- rateLimitState: where a queue's rate limits stand (GET /ojs/v1/admin/queues/:name/rate-limits).
-- Params:   $1 queue text
-- Returns:  one row of kind 'window' (at, interval_ms, now: database clock ms, active: the queue's active jobs),
--           then one of kind 'key' per concurrency key of the queue's available or active jobs (key, concurrency
--           of its latest job, active: its active jobs in every queue).
-- Transition: none.
SELECT 'window' AS kind, NULL AS key, r.last_claim_at AS at, r.interval_ms,
  extract(epoch FROM clock_timestamp())::float8 * 1000 AS now,
  (SELECT count(*)::int FROM {{schema}}.jobs a WHERE a.queue = $1 AND a.state = {{claimed_state}}) AS active,
  NULL::int AS concurrency
FROM (SELECT 1) one LEFT JOIN {{schema}}.rate_limits r ON r.name = 'q:' || $1
UNION ALL
SELECT 'key', k.key, NULL, NULL, NULL,
  (SELECT count(*)::int FROM {{schema}}.jobs a
   WHERE a.state = {{claimed_state}} AND a.x_rest ? 'rateLimit' AND a.x_rest -> 'rateLimit' ->> 'key' = k.key),
  k.concurrency
FROM (
  SELECT DISTINCT ON (j.x_rest -> 'rateLimit' ->> 'key') j.x_rest -> 'rateLimit' ->> 'key' AS key,
    (j.x_rest -> 'rateLimit' ->> 'concurrency')::int AS concurrency
  FROM {{schema}}.jobs j
  WHERE j.queue = $1 AND j.state IN ({{claimable_states}}, {{claimed_state}}) AND j.x_rest -> 'rateLimit' ? 'key'
  ORDER BY j.x_rest -> 'rateLimit' ->> 'key', j.seq DESC
) k
