-- jobTransitionMany: independent guarded compare-and-sets on many jobs, in ONE statement.
-- Params:   $1 ops json: [{ i, id, from text[], to, attempt?, worker?, vu?, dl?, s?, u?, x?, xu?, ds?, du?, xs?,
--           xsu? }] built by transition-ops.ts (ids distinct): s/u set/remove envelope columns, x/xu
--           internal columns, ds/du the other envelope fields (doc), xs/xsu the other internals (x_rest).
-- Returns:  one row per op that won: i, from_state (the state before) and the job's envelope columns, or only
--           the summary columns when every op asked for a summary (the file is rendered twice, as
--           jobTransitionMany#job and #summary, see statements.ts). The driver reads the current state of the
--           others with jobTransitionMany.losers.sql, a new statement whose snapshot includes whatever beat them (this
--           statement's snapshot may predate it: the UPDATE waited for the winner's lock, then re-checked).
-- Transition: any `from → to` edge of core's transition table, or an in-place update when `to` equals the
--           current state; only while the job is in `from` and every given guard holds: attempt, worker (only
--           when the job has a worker_id), visibleUntil, deadLetter. Entering `available` draws a new FIFO seq.
WITH ops AS (
  SELECT *
  FROM json_to_recordset($1::json) AS o(
    i int, id text, "from" text[], "to" text, attempt int, worker text, vu float8, dl boolean,
    s jsonb, u text[], x jsonb, xu text[], ds jsonb, du text[], xs jsonb, xsu text[])
),
moved AS (
  UPDATE {{schema}}.jobs j SET
    state = o."to",
    {{transition_assignments}},
    doc = CASE WHEN o.ds IS NULL AND o.du IS NULL THEN j.doc
               ELSE (j.doc - COALESCE(o.du, '{}'::text[])) || COALESCE(o.ds, '{}'::jsonb) END,
    x_rest = CASE WHEN o.xs IS NULL AND o.xsu IS NULL THEN j.x_rest
                  ELSE NULLIF((COALESCE(j.x_rest, '{}'::jsonb) - COALESCE(o.xsu, '{}'::text[])) || COALESCE(o.xs, '{}'::jsonb), '{}'::jsonb) END,
    seq = CASE WHEN o."to" = 'available' AND j.state <> 'available' THEN nextval('{{schema}}.job_seq') ELSE j.seq END,
    prev_state = j.state
  FROM ops o
  -- The ids as an array too: the planner then probes the primary key for exactly these rows (it cannot
  -- estimate how many records json_to_recordset yields, and may otherwise scan the whole table).
  WHERE j.id = ANY (ARRAY(SELECT id FROM ops)) AND j.id = o.id
    AND j.state = ANY (o."from")
    AND (j.state = o."to" OR (j.state || '>' || o."to") = ANY ({{legal_pairs}}))
    AND (o.attempt IS NULL OR j.attempt = o.attempt)
    AND (o.worker IS NULL OR j.worker_id IS NULL OR j.worker_id = o.worker)
    AND (o.vu IS NULL OR j.x_visible_until = o.vu)
    AND (o.dl IS NULL OR COALESCE(j.x_dead_letter, false) = o.dl)
  RETURNING o.i, j.prev_state AS from_state, {{transition_returning}}
)
SELECT * FROM moved
