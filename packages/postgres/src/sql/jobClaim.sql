-- jobClaim: promotes due jobs of the requested queues, then claims up to $2 available jobs, in ONE statement.
-- Params:   $1 queues text[] (in priority order), $2 limit int, $3 worker_id text, $4 now float8 (epoch ms),
--           $5 now_iso text, $6 visibility_ms float8 | null (null: each job's x.visibilityMs)
-- Returns:  one row per moved job: kind ('claimed' | 'promoted'), ord (queue position) and claim_seq (FIFO
--           number) of claimed jobs, from_state of promoted ones, and the job's envelope columns after the move;
--           plus one row of kind 'missed' (its other columns null) when this statement's snapshot shows jobs of
--           these queues it could not take (see `missed`): they may be claimable once their holders finish.
-- Transitions: available → active (claimed: attempt + 1, started_at, worker_id, visibility and timeout deadlines)
--              available → discarded (claimed but past x.expiresAt: never handed out)
--              scheduled | retryable → available (promoted: due, enqueued_at = now, new FIFO seq)
--              scheduled | retryable → discarded (promoted but past x.expiresAt)
-- Paused queues are skipped. Rows are locked FOR UPDATE SKIP LOCKED, so concurrent claimers never wait on
-- each other and never receive the same job. The claim reads the statement's snapshot, so jobs promoted
-- here become claimable on the next statement: the driver re-runs the claim while it promoted or expired
-- jobs and is still short of $2, and after a 'missed' row waits for those promotions (jobClaim.awaitPromotions)
-- and claims again: without that, a FETCH racing a promotion returned nothing although a job was claimable.
WITH open_queues AS (
  SELECT q.name, q.ord
  FROM unnest($1::text[]) WITH ORDINALITY AS q(name, ord)
  WHERE NOT EXISTS (SELECT 1 FROM {{schema}}.queues p WHERE p.name = q.name AND p.paused)
),
due AS (
  SELECT d.ctid, d.id, COALESCE(d.x_expires_at < $4::float8, false) AS expired
  FROM {{schema}}.jobs d
  WHERE d.state = ANY ({{timer_states}}) AND d.x_due_at <= $4::float8
    AND d.queue IN (SELECT name FROM open_queues)
  ORDER BY d.x_due_at
  LIMIT 1000
  FOR UPDATE SKIP LOCKED
),
promoted AS (
  UPDATE {{schema}}.jobs j SET
    state = CASE WHEN d.expired THEN 'discarded' ELSE 'available' END,
    enqueued_at = CASE WHEN d.expired THEN j.enqueued_at ELSE $5::text END,
    discarded_at = CASE WHEN d.expired THEN $5::text ELSE j.discarded_at END,
    expired_at = CASE WHEN d.expired THEN $5::text ELSE j.expired_at END,
    x_finished_at = CASE WHEN d.expired THEN $4::float8 ELSE j.x_finished_at END,
    seq = CASE WHEN d.expired THEN j.seq ELSE nextval('{{schema}}.job_seq') END,
    prev_state = j.state
  FROM due d
  WHERE j.ctid = ANY (ARRAY(SELECT ctid FROM due)) AND j.ctid = d.ctid AND j.state = ANY ({{timer_states}})
  RETURNING {{job_envelope_columns_j}}, j.prev_state AS from_state
),
picked AS (
  SELECT c.ctid, c.id, c.ord, c.priority, c.seq, c.expired
  FROM open_queues q
  CROSS JOIN LATERAL (
    SELECT a.ctid, a.id, q.ord, a.priority, a.seq, COALESCE(a.x_expires_at < $4::float8, false) AS expired
    FROM {{schema}}.jobs a
    WHERE a.queue = q.name AND a.state = 'available'
    ORDER BY a.priority DESC, a.seq
    LIMIT $2
    FOR UPDATE SKIP LOCKED
  ) c
  ORDER BY c.ord, c.priority DESC, c.seq
  LIMIT $2
),
-- What this statement saw but could not take: due jobs it did not promote (another statement holds them, or
-- promoted them after this snapshot), or, when short of $2, available jobs it did not claim (held by another
-- claim, or by a statement that locked them as due and found them promoted: such locks last to its end).
missed AS (
  SELECT EXISTS (
      SELECT 1 FROM {{schema}}.jobs s
      WHERE s.state = ANY ({{timer_states}}) AND s.x_due_at <= $4::float8
        AND s.queue IN (SELECT name FROM open_queues)
        AND s.id <> ALL (ARRAY(SELECT id FROM due))
    )
    OR ((SELECT count(*) FROM picked) < $2 AND EXISTS (
      SELECT 1 FROM {{schema}}.jobs s
      WHERE s.state = ANY ({{fetch_states}}) AND s.queue IN (SELECT name FROM open_queues)
        AND s.id <> ALL (ARRAY(SELECT id FROM picked))
    )) AS found
),
claimed AS (
  UPDATE {{schema}}.jobs j SET
    state = CASE WHEN p.expired THEN 'discarded' ELSE 'active' END,
    attempt = CASE WHEN p.expired THEN j.attempt ELSE j.attempt + 1 END,
    started_at = CASE WHEN p.expired THEN j.started_at ELSE $5::text END,
    worker_id = CASE WHEN p.expired THEN j.worker_id ELSE $3::text END,
    next_attempt_at = CASE WHEN p.expired THEN j.next_attempt_at END,
    discarded_at = CASE WHEN p.expired THEN $5::text ELSE j.discarded_at END,
    expired_at = CASE WHEN p.expired THEN $5::text ELSE j.expired_at END,
    x_finished_at = CASE WHEN p.expired THEN $4::float8 ELSE j.x_finished_at END,
    x_claim_visibility_ms = CASE WHEN p.expired THEN j.x_claim_visibility_ms ELSE COALESCE($6::float8, j.x_visibility_ms) END,
    x_visible_until = CASE WHEN p.expired THEN j.x_visible_until ELSE $4::float8 + COALESCE($6::float8, j.x_visibility_ms) END,
    x_timeout_at = CASE WHEN p.expired THEN j.x_timeout_at ELSE $4::float8 + j.x_timeout_ms END,
    x_progress = CASE WHEN p.expired THEN j.x_progress END,
    prev_state = j.state
  FROM picked p
  -- The rows are locked by `picked`, so their ctids are stable: fetch them directly (a TID scan; joined on id
  -- the planner may prefer scanning the whole table).
  WHERE j.ctid = ANY (ARRAY(SELECT ctid FROM picked)) AND j.ctid = p.ctid AND j.state = 'available'
  RETURNING p.ord, p.seq AS claim_seq, {{job_envelope_columns_j}}
)
-- ord and claim_seq as int and text: pg hands a bigint over as text after a regex test per value.
SELECT 'claimed' AS kind, ord::int AS ord, claim_seq::text AS claim_seq, NULL AS from_state, {{job_envelope_columns}} FROM claimed
UNION ALL
SELECT 'promoted', NULL, NULL, from_state, {{job_envelope_columns}} FROM promoted
UNION ALL
SELECT 'missed', NULL, NULL, NULL, {{job_envelope_columns}} FROM promoted RIGHT JOIN (SELECT 1) AS one ON false
WHERE (SELECT found FROM missed)
