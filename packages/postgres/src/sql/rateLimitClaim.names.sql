-- rateLimitClaim.names: the rate_limits rows a limited claim must lock, created when missing.
-- Params:   $1 queues text[], $2 scan int (how many waiting jobs per queue the claim looks at)
-- Returns:  names text[] in lock order: 'q:<queue>' per queue, 'k:<key>' per concurrency key among the first $2
--           waiting jobs of each queue.
-- Variants (rate-limited-claim.ts): the jobs a claim takes, available ones or a dispatch log's delivered ones
--           (rl_waiting_a, rl_order).
-- Transition: none.
WITH keys AS (
  SELECT DISTINCT 'k:' || (c.x_rest -> 'rateLimit' ->> 'key') AS name
  FROM unnest($1::text[]) AS q(name)
  CROSS JOIN LATERAL (
    SELECT a.x_rest FROM {{schema}}.jobs a
    WHERE a.queue = q.name AND {{rl_waiting_a}}
    ORDER BY {{rl_order}}
    LIMIT $2
  ) c
  WHERE c.x_rest -> 'rateLimit' ? 'key'
),
names AS (
  SELECT 'q:' || q AS name FROM unnest($1::text[]) AS q
  UNION
  SELECT name FROM keys
),
created AS (
  INSERT INTO {{schema}}.rate_limits (name) SELECT name FROM names ORDER BY name ON CONFLICT (name) DO NOTHING
)
SELECT array_agg(name ORDER BY name COLLATE "C") AS names FROM names
