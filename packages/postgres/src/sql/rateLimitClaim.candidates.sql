-- rateLimitClaim.candidates: the waiting jobs (available, or a dispatch log's delivered ones: the variants of
-- rate-limited-claim.ts, rl_waiting_a, rl_since) a limited claim considers, in claim order, with what the rule
-- needs (core's rate-limit/rule.ts runs in the driver on them, under the rate_limits locks).
-- Params:   $1 queues text[] (in priority order), $2 scan int, $3 now float8 (epoch ms, for expiry),
--           $4 keys text[] (the concurrency keys locked)
-- Returns:  kind 'job': id, queue, ord, rate_limit (jsonb | null); kind 'queue': queue, active (its active jobs),
--           config (jsonb); kind 'key': key (in queue), active.
-- Transition: none. Candidate rows are not locked: every claim that may take a job of these queues holds the
--           queues' rate_limits rows (the plain claim takes nothing from a queue with limits), and
--           rateLimitClaim.claim re-checks each row's state as it updates it. Expired ones are left to the expirer.
-- Order: as jobClaim.sql; a queue with an age boost by core's rank (age_rank), sorted here without an index (a
-- queue with both rate limits and an age boost pays a sort of its available jobs per limited claim).
WITH open_queues AS (
  SELECT q.name, q.ord, (p.config -> 'age_boost' ->> 'interval_ms')::float8 AS age_ms
  FROM unnest($1::text[]) WITH ORDINALITY AS q(name, ord)
  LEFT JOIN {{schema}}.queues p ON p.name = q.name
  WHERE p.paused IS NOT TRUE
),
picked AS (
  SELECT c.id, c.queue, l.ord, c.rank, c.since, c.seq, c.x_rest -> 'rateLimit' AS rate_limit
  FROM open_queues l
  CROSS JOIN LATERAL (
    SELECT a.id, a.queue, a.seq, a.x_rest, CASE WHEN l.age_ms IS NULL THEN -a.priority::float8 ELSE {{age_rank}} END AS rank,
      {{rl_since}} AS since
    FROM {{schema}}.jobs a
    WHERE a.queue = l.name AND {{rl_waiting_a}} AND (a.x_expires_at IS NULL OR a.x_expires_at >= $3::float8)
    ORDER BY 5, 6, a.seq
    LIMIT $2
  ) c
)
SELECT 'job' AS kind, id, queue, ord::int AS ord, rate_limit, NULL::int AS active, NULL::jsonb AS config
FROM (SELECT * FROM picked ORDER BY ord, rank, since, seq) s
UNION ALL
SELECT 'queue', NULL, q.name, q.ord::int, NULL,
  (SELECT count(*)::int FROM {{schema}}.jobs a WHERE a.queue = q.name AND a.state = {{claimed_state}}),
  (SELECT p.config FROM {{schema}}.queues p WHERE p.name = q.name)
FROM open_queues q
UNION ALL
SELECT 'key', NULL, k.key, NULL, NULL,
  (SELECT count(*)::int FROM {{schema}}.jobs a
   WHERE a.state = {{claimed_state}} AND a.x_rest ? 'rateLimit' AND a.x_rest -> 'rateLimit' ->> 'key' = k.key),
  NULL
FROM unnest($4::text[]) AS k(key)
