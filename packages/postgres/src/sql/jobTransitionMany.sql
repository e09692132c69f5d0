-- jobTransitionMany: independent guarded compare-and-sets on many jobs, in ONE statement.
-- Rendered once per op *shape* (which fields the ops set, clear and guard on, and which tables their rows go
-- between: see transition-ops.ts), so each row's change is a plain list of assignments, with no per-column
-- test of what the op carries.
-- Params:   $1 ops jsonb: one record per op (op_record: index, id, guard values, sg) with distinct ids;
--           $2 shared jsonb: the parts ops share (shared_record: sg, from, to, the values set, the history
--           note), each once, an op taking the one of its `sg`: a batch of ACKs of one instant sends its values once rather
--           than in every record (less to encode, send and parse per op). `s_<column>` holds the new value of a
--           column the shape sets (json columns as JSON text); ds/du, xs/xsu the envelope fields kept in `doc`
--           and the internals kept in `x_rest` to set / remove.
-- Returns:  one row per op that won: i, moved_id, from_state (the state before) and the job's envelope
--           columns, or only the summary columns (type, queue, attempt, workflow_id: its id and state are the
--           op's) when every op of the batch asked for a summary.
--           The driver reads the current state of the others with jobTransitionMany.losers.sql, a new
--           statement whose snapshot includes whatever beat them (this one's snapshot may predate it: the
--           DELETE or UPDATE waited for the winner's lock, then re-checked the row).
-- Transition: any `from → to` edge of core's transition table, or an in-place update when `to` equals the
--           current state; only while the job is in `from` and every guard of the shape holds: attempt,
--           worker (only when the job has a worker_id), visibleUntil, deadLetter. Entering `available` draws
--           a new FIFO seq. Four routes, each in the statement or left out by the shape (an `#if route_…` block): a
--           route left out is an empty SELECT of its columns, planned as a Result that never runs. (Switched off
--           by a `false` in its WHERE clause instead, its UPDATE, DELETE or INSERT was still set up at every
--           execution, its table and each of the table's indexes opened.)
--             kept      unfinished → unfinished: UPDATE jobs in place;
--             finish    unfinished → finished: DELETE from jobs, INSERT the finished row into jobs_finished;
--             revive    finished → unfinished (a dead-letter retry): DELETE from jobs_finished, INSERT into jobs;
--             amend     finished → the same finished state: UPDATE jobs_finished in place.
--           The same guards (the op's `from`, the edge, the shape's guards) hold the DELETEs as the UPDATEs.
-- The ops are jsonb, not json: a json parameter is lexed when bound (to validate it) and again by
-- json_to_recordset, which also builds a hash table of each record's keys; jsonb is parsed once and its
-- records' keys are found by binary search (about 8 % of the server's instructions per claimed and
-- completed job).
WITH ops AS (
  SELECT *
  FROM jsonb_to_recordset($1::jsonb) AS o({{op_record}})
  JOIN jsonb_to_recordset($2::jsonb) AS s({{shared_record}}) USING (sg)
),
kept AS (
{{#if route_kept}}
  UPDATE {{schema}}.jobs j SET
    state = o."to",
    {{assignments}}
    seq = CASE WHEN o."to" IN ({{claimable_states}}) AND j.state NOT IN ({{claimable_states}}) THEN nextval('{{schema}}.job_seq') ELSE j.seq END,
    prev_state = j.state
  FROM ops o
  -- The ids as an array too: the planner then probes the primary key for exactly these rows (it cannot
  -- estimate how many records jsonb_to_recordset yields, and may otherwise scan the whole table).
  WHERE j.id = ANY (ARRAY(SELECT id FROM ops)) AND j.id = o.id
    -- `from` stays jsonb (an array of states): `?` finds the state in it without building a text[] per op.
    AND o."from" ? j.state
    AND (j.state = o."to" OR (j.state || '>' || o."to") = ANY ({{legal_pairs}}))
    {{undelivered_guard}}
    {{guards}}
  RETURNING o.i, j.id AS moved_id, j.prev_state AS from_state, {{transition_returning}}
{{else}}
  SELECT o.i, j.id AS moved_id, j.prev_state AS from_state, {{transition_returning}} FROM ops o, {{schema}}.jobs j WHERE false
{{/if}}
),
finishing AS (
{{#if route_finish}}
  DELETE FROM {{schema}}.jobs j USING ops o
  WHERE j.id = ANY (ARRAY(SELECT id FROM ops)) AND j.id = o.id
    AND o."from" ? j.state
    AND (j.state || '>' || o."to") = ANY ({{legal_pairs}})
    {{guards}}
  RETURNING j.*
{{else}}
  SELECT j.* FROM {{schema}}.jobs j WHERE false
{{/if}}
),
finished AS (
{{#if route_finish}}
  INSERT INTO {{schema}}.jobs_finished AS j ({{table_columns}})
  SELECT {{moved_values}} FROM finishing g JOIN ops o ON o.id = g.id
  RETURNING j.id AS moved_id, j.prev_state AS from_state, {{transition_returning}}
{{else}}
  SELECT j.id AS moved_id, j.prev_state AS from_state, {{transition_returning}} FROM {{schema}}.jobs_finished j WHERE false
{{/if}}
),
reviving AS (
{{#if route_revive}}
  DELETE FROM {{schema}}.jobs_finished j USING ops o
  WHERE j.id = ANY (ARRAY(SELECT id FROM ops)) AND j.id = o.id
    AND o."from" ? j.state
    AND (j.state || '>' || o."to") = ANY ({{legal_pairs}})
    {{guards}}
  RETURNING j.*
{{else}}
  SELECT j.* FROM {{schema}}.jobs_finished j WHERE false
{{/if}}
),
revived AS (
{{#if route_revive}}
  INSERT INTO {{schema}}.jobs AS j ({{table_columns}})
  SELECT {{revived_values}} FROM reviving g JOIN ops o ON o.id = g.id
  RETURNING j.id AS moved_id, j.prev_state AS from_state, {{transition_returning}}
{{else}}
  SELECT j.id AS moved_id, j.prev_state AS from_state, {{transition_returning}} FROM {{schema}}.jobs j WHERE false
{{/if}}
),
amended AS (
{{#if route_amend}}
  UPDATE {{schema}}.jobs_finished j SET
    {{assignments}}
    prev_state = j.state
  FROM ops o
  WHERE j.id = ANY (ARRAY(SELECT id FROM ops)) AND j.id = o.id
    AND o."from" ? j.state AND j.state = o."to"
    {{guards}}
  RETURNING o.i, j.id AS moved_id, j.prev_state AS from_state, {{transition_returning}}
{{else}}
  SELECT o.i, j.id AS moved_id, j.prev_state AS from_state, {{transition_returning}} FROM ops o, {{schema}}.jobs_finished j WHERE false
{{/if}}
)
SELECT * FROM kept
UNION ALL
SELECT o.i, f.* FROM finished f JOIN ops o ON o.id = f.moved_id
UNION ALL
SELECT o.i, r.* FROM revived r JOIN ops o ON o.id = r.moved_id
UNION ALL
SELECT * FROM amended
