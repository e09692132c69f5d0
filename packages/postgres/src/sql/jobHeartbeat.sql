-- jobHeartbeat: extends the visibility deadline of active jobs, and reports the state of every id asked.
-- Params:   $1 ids text[], $2 now float8, $3 visibility_ms float8|null (null: x.claimVisibilityMs, else
--           x.visibilityMs), $4 worker_id text|null (checked only when the job has a worker_id too)
-- Returns:  one row per requested id: id, state (null when unknown; finished jobs are read from jobs_finished), extended (bool), and for extended jobs
--           type, queue, attempt, workflow_id, worker_id, visible_until.
-- Transition: none (active stays active; x.visibleUntil moves).
-- A job whose row another statement holds right now (an ACK or FAIL of it, a cancel, a rescue, a progress
-- write) is skipped, not waited for: it is reported as not extended, and the worker checks it (GET) or extends
-- it at its next beat. Waiting made this multi-row UPDATE a party to deadlocks: it locked its rows in its own
-- order while a batched ACK of the same jobs locked them in another (seen in CI: "deadlock detected").
WITH ids AS (
  SELECT DISTINCT id FROM unnest($1::text[]) AS id
),
free AS (
  SELECT j.id FROM {{schema}}.jobs j
  WHERE j.id = ANY ($1::text[]) AND j.state = {{claimed_state}}
    AND ($4::text IS NULL OR j.worker_id IS NULL OR j.worker_id = $4)
  FOR UPDATE SKIP LOCKED
),
extended AS (
  UPDATE {{schema}}.jobs j SET
    x_visible_until = $2::float8 + COALESCE($3::float8, j.x_claim_visibility_ms, j.x_visibility_ms)
  WHERE j.id IN (SELECT id FROM free)
  RETURNING j.id, j.type, j.queue, j.attempt, j.workflow_id, j.worker_id, j.x_visible_until AS visible_until
)
SELECT i.id, j.state, e.id IS NOT NULL AS extended, e.type, e.queue, e.attempt, e.workflow_id, e.worker_id, e.visible_until
FROM ids i
LEFT JOIN (
  SELECT h.id, h.state FROM {{schema}}.jobs h WHERE h.id = ANY ($1::text[])
  UNION ALL
  SELECT f.id, f.state FROM {{schema}}.jobs_finished f WHERE f.id = ANY ($1::text[])
) j ON j.id = i.id
LEFT JOIN extended e ON e.id = i.id
