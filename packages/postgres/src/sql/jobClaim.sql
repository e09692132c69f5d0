-- jobClaim: promotes due jobs of the requested queues, then claims up to $2 available jobs, in ONE statement.
-- Params:   $1 queues text[] (in priority order), $2 limit int, $3 worker_id text, $4 now float8 (epoch ms),
--           $5 now_iso text, $6 visibility_ms float8 | null (null: each job's x.visibilityMs)
-- Returns:  a row of kind 'limited' (other columns null) when a queue holds rate limits: nothing was claimed,
--           see `limited`; otherwise one row per moved job: kind ('claimed' | 'promoted' | 'expired'), ord (queue position),
--           claim_rank (−priority, or the age-boost rank) and claim_seq (FIFO number) of claimed jobs, from_state of promoted and expired ones, and the job's
--           envelope columns after the move; plus one row of kind 'missed' when this statement's snapshot
--           shows jobs of these queues it could not take (see `missed`; ord 1: due jobs, 2: available ones
--           only; its other columns null): they may be claimable once their holders finish.
-- Transitions: available → active (claimed: attempt + 1, started_at, worker_id, visibility and timeout deadlines)
--              available → discarded (claimed but past x.expiresAt: never handed out)
--              scheduled | retryable → available (promoted: due, enqueued_at = now, new FIFO seq)
--              scheduled | retryable → discarded (promoted but past x.expiresAt)
--              A discarded job leaves the hot table: deleted from jobs, inserted into jobs_finished, here.
-- Paused queues are skipped. Rows are locked FOR UPDATE SKIP LOCKED, so concurrent claimers never wait on
-- each other and never receive the same job. The claim reads the statement's snapshot, so jobs promoted
-- here become claimable on the next statement: the driver re-runs the claim while it promoted or expired
-- jobs and is still short of $2, and after a 'missed' row claims again (after waiting for the promotions under
-- way when due jobs were held: jobClaim.awaitPromotions): without that, a FETCH racing a promotion returned
-- nothing although a job was claimable.
-- Order: priority then FIFO seq; in a queue with an age boost (config age_boost.interval_ms: age_ms) by core's
-- rank (age_rank, rendered from core: enqueued ms − priority × age_ms) then seq. That rank has no index: `aged_levels` walks
-- the queue's distinct priorities down jobs_available_idx (one probe each), and `picked` takes the first $2 of
-- each level by seq (their FIFO order is their rank order: enqueued_at is stamped as seq is drawn), merged by rank.
WITH RECURSIVE params AS (
  SELECT $4::float8 AS now_ms, $5::text AS now_iso
),
open_queues AS (
  SELECT q.name, q.ord, (p.config -> 'age_boost' ->> 'interval_ms')::float8 AS age_ms
  FROM unnest($1::text[]) WITH ORDINALITY AS q(name, ord)
  LEFT JOIN {{schema}}.queues p ON p.name = q.name
  WHERE p.paused IS NOT TRUE
),
due AS (
  SELECT d.ctid, d.id, COALESCE(d.x_expires_at < $4::float8, false) AS expired
  FROM {{schema}}.jobs d
  WHERE d.state IN ({{due_states}}) AND d.x_due_at <= $4::float8
    AND d.queue IN (SELECT name FROM open_queues)
  ORDER BY d.x_due_at
  LIMIT 1000
  FOR UPDATE SKIP LOCKED
),
promoted AS (
  UPDATE {{schema}}.jobs j SET
    {{claim_promote_set}},
    seq = nextval('{{schema}}.job_seq'),
    prev_state = j.state
  FROM due d
  WHERE j.ctid = ANY (ARRAY(SELECT ctid FROM due WHERE NOT expired)) AND j.ctid = d.ctid
    AND j.state IN ({{due_states}})
  RETURNING {{job_envelope_columns_j}}, j.prev_state AS from_state
),
-- Rate limits: when a queue here has a limit of its own or an available limited job, this statement claims
-- nothing and says so (a 'limited' row); the driver then claims under the rate_limits locks
-- (rateLimitClaim.*), where the rule can count what concurrent claims took.
limited AS (
  SELECT {{open_queue_has_limits}} OR EXISTS (
      SELECT 1 FROM {{schema}}.jobs r
      WHERE r.queue IN (SELECT name FROM open_queues) AND r.state IN ({{claimable_states}}) AND r.x_rest ? 'rateLimit'
    ) AS found
),
aged_levels AS (
  SELECT q.name, q.ord, q.age_ms,
    (SELECT max(a.priority) FROM {{schema}}.jobs a WHERE a.queue = q.name AND a.state IN ({{claimable_states}})) AS priority
  FROM open_queues q
  WHERE q.age_ms IS NOT NULL AND NOT (SELECT found FROM limited)
  UNION ALL
  SELECT l.name, l.ord, l.age_ms,
    (SELECT max(a.priority) FROM {{schema}}.jobs a WHERE a.queue = l.name AND a.state IN ({{claimable_states}}) AND a.priority < l.priority)
  FROM aged_levels l
  WHERE l.priority IS NOT NULL
),
picked AS (
  SELECT c.ctid, c.id, c.ord, c.priority, c.seq, c.expired, c.rank
  FROM (
    SELECT c.*
    FROM open_queues q
    CROSS JOIN LATERAL (
      SELECT a.ctid, a.id, q.ord, a.priority, a.seq, COALESCE(a.x_expires_at < $4::float8, false) AS expired, -a.priority::float8 AS rank
      FROM {{schema}}.jobs a
      WHERE a.queue = q.name AND a.state IN ({{claimable_states}}) AND NOT (SELECT found FROM limited)
      ORDER BY a.priority DESC, a.seq
      LIMIT $2
      FOR UPDATE SKIP LOCKED
    ) c
    WHERE q.age_ms IS NULL
    UNION ALL
    SELECT c.*
    FROM aged_levels l
    CROSS JOIN LATERAL (
      SELECT a.ctid, a.id, l.ord, a.priority, a.seq, COALESCE(a.x_expires_at < $4::float8, false) AS expired, {{age_rank}} AS rank
      FROM {{schema}}.jobs a
      WHERE a.queue = l.name AND a.state IN ({{claimable_states}}) AND a.priority = l.priority
      ORDER BY a.seq
      LIMIT $2
      FOR UPDATE SKIP LOCKED
    ) c
    WHERE l.priority IS NOT NULL
  ) c
  ORDER BY c.ord, c.rank, c.seq
  LIMIT $2
),
-- What this statement saw but could not take: due jobs it did not promote (another statement holds them, or
-- promoted them after this snapshot), or, when short of $2, available jobs it did not claim (held by another
-- claim, or by a statement that locked them as due and found them promoted: such locks last to its end).
missed AS (
  SELECT EXISTS (
      SELECT 1 FROM {{schema}}.jobs s
      WHERE s.state IN ({{due_states}}) AND s.x_due_at <= $4::float8
        AND s.queue IN (SELECT name FROM open_queues)
        AND s.id <> ALL (ARRAY(SELECT id FROM due))
    ) AS due,
    ((SELECT count(*) FROM picked) < $2 AND EXISTS (
      SELECT 1 FROM {{schema}}.jobs s
      WHERE s.state IN ({{claimable_states}}) AND s.queue IN (SELECT name FROM open_queues)
        AND s.id <> ALL (ARRAY(SELECT id FROM picked))
    )) AS available
),
claimed AS (
  UPDATE {{schema}}.jobs j SET
    {{claim_set}},
    prev_state = j.state
  FROM picked p
  -- The rows are locked by `picked`, so their ctids are stable: fetch them directly (a TID scan; joined on id
  -- the planner may prefer scanning the whole table).
  WHERE j.ctid = ANY (ARRAY(SELECT ctid FROM picked WHERE NOT expired)) AND j.ctid = p.ctid
    AND j.state IN ({{claimable_states}})
  RETURNING p.ord, p.seq AS claim_seq, p.rank AS claim_rank, {{job_envelope_columns_j}}
),
-- Expired jobs leave the hot table, those met as due and those met as claimable alike, in one DELETE feeding one
-- INSERT (each its own guard on the state it was seen in): two pairs of data-modifying CTEs cost a second set-up
-- of each table and its indexes at every execution, rows or not.
expiring AS (
  DELETE FROM {{schema}}.jobs j
  WHERE (j.ctid = ANY (ARRAY(SELECT ctid FROM due WHERE expired)) AND j.state IN ({{due_states}}))
     OR (j.ctid = ANY (ARRAY(SELECT ctid FROM picked WHERE expired)) AND j.state IN ({{claimable_states}}))
  RETURNING j.*
),
expired_moved AS (
  INSERT INTO {{schema}}.jobs_finished AS j ({{table_columns}})
  SELECT {{expire_move_values}} FROM expiring g, params p
  RETURNING {{job_envelope_columns_j}}, j.prev_state AS from_state
)
-- ord and claim_seq as int and text: pg hands a bigint over as text after a regex test per value.
SELECT 'claimed' AS kind, ord::int AS ord, claim_seq::text AS claim_seq, claim_rank, NULL AS from_state, {{job_envelope_columns}} FROM claimed
UNION ALL
SELECT 'promoted', NULL, NULL, NULL, from_state, {{job_envelope_columns}} FROM promoted
UNION ALL
SELECT 'expired', NULL, NULL, NULL, from_state, {{job_envelope_columns}} FROM expired_moved
UNION ALL
SELECT 'missed', CASE WHEN m.due THEN 1 ELSE 2 END, NULL, NULL, NULL, {{job_envelope_columns}}
FROM missed m LEFT JOIN promoted ON false
WHERE (m.due OR m.available) AND NOT (SELECT found FROM limited)
UNION ALL
SELECT 'limited', NULL, NULL, NULL, NULL, {{job_envelope_columns}}
FROM limited l LEFT JOIN promoted ON false
WHERE l.found
