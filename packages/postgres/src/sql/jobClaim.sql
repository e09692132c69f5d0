-- jobClaim: promotes due jobs of the requested queues, then claims up to $2 available jobs, in ONE statement.
-- Params:   $1 queues text[] (in priority order), $2 limit int, $3 worker_id text, $4 now numeric (epoch ms),
--           $5 now_iso text, $6 visibility_ms numeric | null (null: each job's x.visibilityMs)
-- Returns:  one row per moved job: kind ('claimed' | 'promoted'), ord (queue position), priority, seq, state
--           (the new state), from_state (promoted rows), doc, args, meta, result (the job after the move).
-- Transitions: available → active (claimed: attempt + 1, started_at, worker_id, visibility and timeout deadlines)
--              available → discarded (claimed but past x.expiresAt: never handed out)
--              scheduled | retryable → available (promoted: due, enqueued_at = now, new FIFO seq)
--              scheduled | retryable → discarded (promoted but past x.expiresAt)
-- Paused queues are skipped. Rows are locked FOR UPDATE SKIP LOCKED, so concurrent claimers never wait on
-- each other and never receive the same job. The claim reads the statement's snapshot, so jobs promoted
-- here become claimable on the next statement: the driver re-runs the claim while it promoted or expired
-- jobs and is still short of $2.
WITH open_queues AS (
  SELECT q.name, q.ord
  FROM unnest($1::text[]) WITH ORDINALITY AS q(name, ord)
  WHERE NOT EXISTS (SELECT 1 FROM {{schema}}.queues p WHERE p.name = q.name AND p.paused)
),
due AS (
  SELECT d.id, COALESCE(d.expires_at < $4::numeric, false) AS expired
  FROM {{schema}}.jobs d
  WHERE d.state IN ('scheduled', 'retryable') AND d.due_at <= $4::numeric
    AND d.queue IN (SELECT name FROM open_queues)
  ORDER BY d.due_at
  LIMIT 1000
  FOR UPDATE SKIP LOCKED
),
promoted AS (
  UPDATE {{schema}}.jobs j SET
    doc = CASE WHEN d.expired
            THEN j.doc || jsonb_build_object('state', 'discarded', 'discarded_at', $5::text, 'expired_at', $5::text)
            ELSE j.doc || jsonb_build_object('state', 'available', 'enqueued_at', $5::text) END,
    x = CASE WHEN d.expired THEN j.x || jsonb_build_object('finishedAt', $4::numeric) ELSE j.x END,
    seq = CASE WHEN d.expired THEN j.seq ELSE nextval('{{schema}}.job_seq') END,
    prev_state = j.state
  FROM due d
  WHERE j.id = d.id AND j.state IN ('scheduled', 'retryable')
  RETURNING j.doc, j.args, j.meta, j.result::text AS result, j.state, j.prev_state
),
picked AS (
  SELECT c.id, c.ord, c.priority, c.seq, c.expired
  FROM open_queues q
  CROSS JOIN LATERAL (
    SELECT a.id, q.ord, a.priority, a.seq, COALESCE(a.expires_at < $4::numeric, false) AS expired
    FROM {{schema}}.jobs a
    WHERE a.queue = q.name AND a.state = 'available'
    ORDER BY a.priority DESC, a.seq
    LIMIT $2
    FOR UPDATE SKIP LOCKED
  ) c
  ORDER BY c.ord, c.priority DESC, c.seq
  LIMIT $2
),
claimed AS (
  UPDATE {{schema}}.jobs j SET
    doc = CASE WHEN p.expired
            THEN j.doc || jsonb_build_object('state', 'discarded', 'discarded_at', $5::text, 'expired_at', $5::text)
            ELSE (j.doc - 'next_attempt_at')
              || jsonb_build_object('state', 'active', 'attempt', j.attempt + 1, 'started_at', $5::text, 'worker_id', $3::text) END,
    x = CASE WHEN p.expired
          THEN j.x || jsonb_build_object('finishedAt', $4::numeric)
          ELSE (j.x - 'progress') || jsonb_strip_nulls(jsonb_build_object(
            'claimVisibilityMs', COALESCE($6::numeric, (j.x->'visibilityMs')::numeric),
            'visibleUntil', $4::numeric + COALESCE($6::numeric, (j.x->'visibilityMs')::numeric),
            'timeoutAt', $4::numeric + (j.x->'timeoutMs')::numeric)) END,
    prev_state = j.state
  FROM picked p
  WHERE j.id = p.id AND j.state = 'available'
  RETURNING p.ord, p.priority, p.seq, j.state, j.doc, j.args, j.meta, j.result::text AS result
)
SELECT 'claimed' AS kind, ord, priority, seq, state, NULL AS from_state, doc, args, meta, result FROM claimed
UNION ALL
SELECT 'promoted', NULL, NULL, NULL, state, prev_state, doc, args, meta, result FROM promoted
