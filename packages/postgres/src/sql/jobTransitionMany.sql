-- jobTransitionMany: independent guarded compare-and-sets on many jobs, in ONE statement.
-- Params:   $1 ops jsonb: [{ i, id, from text[], to, attempt?, worker?, vu?, dl?, set jsonb, unset text[],
--           vset jsonb, xset jsonb, xunset text[], summary bool }] (built by transition-ops.ts; ids are
--           distinct). vset holds new args/meta/result as JSON text, stored verbatim in their json columns.
-- Returns:  one row per op: i, id, ok; for winners from_state (the state before), state, doc, args, meta, result
--           (null for a 'summary' op), type, queue, attempt, workflow_id. For losers only i and id: the driver reads
--           their current state with jobTransitionMany.losers.sql, a new statement whose snapshot includes the
--           winner (this statement's snapshot may predate it: the UPDATE waited for the winner's lock).
-- Transition: any `from → to` edge of core's transition table ({{legal_pairs}}), or an in-place update when
--           `to` equals the current state; only while the job is in `from` and every given guard holds:
--           attempt, worker (only when the job has a worker_id), visibleUntil, deadLetter.
--           Entering `available` draws a new FIFO seq. Losers are reported with their current state.
WITH ops AS (
  SELECT *
  FROM jsonb_to_recordset($1::jsonb) AS o(
    i int, id text, "from" text[], "to" text, attempt int, worker text, vu numeric, dl boolean,
    set jsonb, unset text[], vset jsonb, xset jsonb, xunset text[], summary boolean)
),
moved AS (
  UPDATE {{schema}}.jobs j SET
    doc = (j.doc - COALESCE(o.unset, '{}'::text[])) || o.set,
    x = (j.x - COALESCE(o.xunset, '{}'::text[])) || COALESCE(o.xset, '{}'::jsonb),
    args = COALESCE((o.vset->>'args')::json, j.args),
    meta = COALESCE((o.vset->>'meta')::json, j.meta),
    result = CASE WHEN o.vset ? 'result' THEN (o.vset->>'result')::json
                  WHEN 'result' = ANY (o.unset) THEN NULL ELSE j.result END,
    seq = CASE WHEN o."to" = 'available' AND j.state <> 'available' THEN nextval('{{schema}}.job_seq') ELSE j.seq END,
    prev_state = j.state
  FROM ops o
  WHERE j.id = o.id
    AND j.state = ANY (o."from")
    AND (j.state = o."to" OR (j.state || '>' || o."to") = ANY ({{legal_pairs}}))
    AND (o.attempt IS NULL OR j.attempt = o.attempt)
    AND (o.worker IS NULL OR j.worker_id IS NULL OR j.worker_id = o.worker)
    AND (o.vu IS NULL OR (j.x->>'visibleUntil')::numeric = o.vu)
    AND (o.dl IS NULL OR j.dead_letter = o.dl)
  RETURNING o.i, j.id, j.prev_state AS from_state, j.state, CASE WHEN o.summary THEN NULL ELSE j.doc END AS doc,
    CASE WHEN o.summary THEN NULL ELSE j.args END AS args, CASE WHEN o.summary THEN NULL ELSE j.meta END AS meta,
    CASE WHEN o.summary THEN NULL ELSE j.result::text END AS result,
    j.type, j.queue, j.attempt, j.doc->>'workflow_id' AS workflow_id
)
SELECT i, id, true AS ok, from_state, state, doc, args, meta, result, type, queue, attempt, workflow_id FROM moved
UNION ALL
SELECT o.i, o.id, false, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL
FROM ops o
WHERE NOT EXISTS (SELECT 1 FROM moved m WHERE m.i = o.i)
