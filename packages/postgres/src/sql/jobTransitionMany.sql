-- jobTransitionMany: independent guarded compare-and-sets on many jobs, in ONE statement.
-- Rendered once per op *shape* (which fields the ops set, clear and guard on: see transition-ops.ts), so
-- each row's update is a plain list of assignments, with no per-column test of what the op carries.
-- Params:   $1 ops jsonb: one record per op ({{op_record}}) with distinct ids; `s_<column>` holds the new
--           value of a column the shape sets (json columns as JSON text); ds/du, xs/xsu the envelope fields
--           kept in `doc` and the internals kept in `x_rest` to set / remove.
-- Returns:  one row per op that won: i, from_state (the state before) and the job's envelope columns, or only
--           the summary columns (type, queue, attempt, workflow_id: its id and state are the op's) when every
--           op of the batch asked for a summary.
--           The driver reads the current state of the others with jobTransitionMany.losers.sql, a new
--           statement whose snapshot includes whatever beat them (this one's snapshot may predate it: the
--           UPDATE waited for the winner's lock, then re-checked the row).
-- Transition: any `from → to` edge of core's transition table, or an in-place update when `to` equals the
--           current state; only while the job is in `from` and every guard of the shape holds: attempt,
--           worker (only when the job has a worker_id), visibleUntil, deadLetter. Entering `available` draws
--           a new FIFO seq.
-- The ops are jsonb, not json: a json parameter is lexed when bound (to validate it) and again by
-- json_to_recordset, which also builds a hash table of each record's keys; jsonb is parsed once and its
-- records' keys are found by binary search (about 8 % of the server's instructions per claimed and
-- completed job).
WITH ops AS (
  SELECT * FROM jsonb_to_recordset($1::jsonb) AS o({{op_record}})
),
moved AS (
  UPDATE {{schema}}.jobs j SET
    state = o."to",
    {{assignments}}
    seq = CASE WHEN o."to" = {{claimable_state}} AND j.state <> {{claimable_state}} THEN nextval('{{schema}}.job_seq') ELSE j.seq END,
    prev_state = j.state
  FROM ops o
  -- The ids as an array too: the planner then probes the primary key for exactly these rows (it cannot
  -- estimate how many records jsonb_to_recordset yields, and may otherwise scan the whole table).
  WHERE j.id = ANY (ARRAY(SELECT id FROM ops)) AND j.id = o.id
    -- `from` stays jsonb (an array of states): `?` finds the state in it without building a text[] per op.
    AND o."from" ? j.state
    AND (j.state = o."to" OR (j.state || '>' || o."to") = ANY ({{legal_pairs}}))
    {{guards}}
  RETURNING o.i, j.prev_state AS from_state, {{transition_returning}}
)
SELECT * FROM moved
