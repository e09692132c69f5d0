-- jobClaimDispatched: a dispatch log's store (@ojskit/kafka) claims up to $2 jobs the log delivered, in ONE statement.
-- Params:   $1 queues text[] (in priority order), $2 limit int, $3 worker_id text, $4 now float8 (epoch ms),
--           $5 now_iso text, $6 visibility_ms float8 | null (null: each job's x.visibilityMs)
-- Returns:  a row of kind 'limited' (other columns null) when a queue holds rate limits: nothing was claimed (the
--           driver then claims under the rate_limits locks, rate-limited-claim.ts); otherwise
--           one row per moved job: kind ('claimed' | 'expired'), and for claimed ones ord (queue position),
--           claim_rank (−priority, or the age-boost rank), dispatched_at and claim_seq (the order keys); then
--           the job's envelope columns after the move.
-- Transitions (core's DISPATCH_EFFECTS): dispatched → active (claimed: attempt + 1, started_at, worker_id,
--              visibility and timeout deadlines, the dispatch marker removed); dispatched → discarded (past
--              x.expiresAt: never handed out; the row moves to jobs_finished).
-- Only rows in the dispatched state carrying the marker (x_rest 'dispatchedAt') are taken: a job staged by
-- `pending: true` never is. Paused queues are skipped; nothing is promoted. Rows are
-- locked FOR UPDATE SKIP LOCKED, so concurrent claimers never wait on each other and never get the same job.
-- Order: priority, dispatch time, then FIFO seq (a dispatcher stamps a whole batch with one instant; seq is the
-- order the jobs became ready) (jobs_dispatched_idx); in a queue with an age boost by core's rank (age_rank)
-- first, without an index.
WITH params AS (
  SELECT $4::float8 AS now_ms, $5::text AS now_iso
),
open_queues AS (
  SELECT q.name, q.ord, (p.config -> 'age_boost' ->> 'interval_ms')::float8 AS age_ms
  FROM unnest($1::text[]) WITH ORDINALITY AS q(name, ord)
  LEFT JOIN {{schema}}.queues p ON p.name = q.name
  WHERE p.paused IS NOT TRUE
),
-- Rate limits: as jobClaim.sql's `limited`, over the delivered jobs (jobs_rate_limited_dispatched_idx).
limited AS (
  SELECT {{open_queue_has_limits}} OR EXISTS (
      SELECT 1 FROM {{schema}}.jobs r
      WHERE r.queue IN (SELECT name FROM open_queues) AND r.state = {{dispatched_state}} AND r.x_rest ? 'dispatchedAt'
        AND r.x_rest ? 'rateLimit'
    ) AS found
),
picked AS (
  SELECT c.*
  FROM (
    SELECT c.*
    FROM open_queues l
    CROSS JOIN LATERAL (
      SELECT a.ctid, l.ord, COALESCE(a.x_expires_at < $4::float8, false) AS expired, -a.priority::float8 AS rank,
        (a.x_rest ->> 'dispatchedAt')::float8 AS dispatched_at, a.seq
      FROM {{schema}}.jobs a
      WHERE a.queue = l.name AND a.state = {{dispatched_state}} AND a.x_rest ? 'dispatchedAt'
      ORDER BY a.priority DESC, (a.x_rest ->> 'dispatchedAt')::float8, a.seq
      LIMIT $2
      FOR UPDATE SKIP LOCKED
    ) c
    WHERE l.age_ms IS NULL AND NOT (SELECT found FROM limited)
    UNION ALL
    SELECT c.*
    FROM open_queues l
    CROSS JOIN LATERAL (
      SELECT a.ctid, l.ord, COALESCE(a.x_expires_at < $4::float8, false) AS expired, {{age_rank}} AS rank,
        (a.x_rest ->> 'dispatchedAt')::float8 AS dispatched_at, a.seq
      FROM {{schema}}.jobs a
      WHERE a.queue = l.name AND a.state = {{dispatched_state}} AND a.x_rest ? 'dispatchedAt'
      ORDER BY {{age_rank}}, (a.x_rest ->> 'dispatchedAt')::float8, a.seq
      LIMIT $2
      FOR UPDATE SKIP LOCKED
    ) c
    WHERE l.age_ms IS NOT NULL AND NOT (SELECT found FROM limited)
  ) c
  ORDER BY c.ord, c.rank, c.dispatched_at, c.seq
  LIMIT $2
),
claimed AS (
  UPDATE {{schema}}.jobs j SET
    {{dispatch_claim_set}},
    prev_state = j.state
  FROM picked p
  -- The rows are locked by `picked`, so their ctids are stable: fetch them directly (a TID scan).
  WHERE j.ctid = ANY (ARRAY(SELECT ctid FROM picked WHERE NOT expired)) AND j.ctid = p.ctid
    AND j.state = {{dispatched_state}}
  RETURNING p.ord, p.rank AS claim_rank, p.dispatched_at, p.seq AS claim_seq, {{job_envelope_columns_j}}
),
leaving AS (
  DELETE FROM {{schema}}.jobs j
  WHERE j.ctid = ANY (ARRAY(SELECT ctid FROM picked WHERE expired)) AND j.state = {{dispatched_state}}
  RETURNING j.*
),
expired AS (
  INSERT INTO {{schema}}.jobs_finished AS j ({{table_columns}})
  SELECT {{dispatch_expire_move_values}} FROM leaving g, params p
  RETURNING {{job_envelope_columns_j}}
)
-- ord as int and claim_seq as text: pg hands a bigint over as text after a regex test per value.
SELECT 'claimed' AS kind, ord::int AS ord, claim_rank, dispatched_at, claim_seq::text AS claim_seq, {{job_envelope_columns}} FROM claimed
UNION ALL
SELECT 'expired', NULL, NULL, NULL, NULL, {{job_envelope_columns}} FROM expired
UNION ALL
SELECT 'limited', NULL, NULL, NULL, NULL, {{job_envelope_columns}}
FROM limited l LEFT JOIN expired ON false
WHERE l.found
