-- lifecycle: the state CHECK constraint and the transition trigger, rendered from core's JOB_STATES and
-- TRANSITIONS (never typed by hand). A repeatable migration: migrate.ts re-applies it whenever its rendered
-- text changes, so a new state or transition in core reaches existing databases.
--
-- The trigger is the second line of defence: every statement of the driver already guards its UPDATE with
-- `state = ANY(allowed)`; the trigger refuses any other writer (a hand-written UPDATE, a bug) that would move
-- a job along an edge the table does not have. In-place updates (same state) do not fire it, and neither do
-- legal edges: the WHEN clause checks the edge (an expression, evaluated per row at a fraction of a PL/pgSQL
-- call, which every claim and completion would otherwise pay), so the function only runs to refuse. It keeps
-- its own check, so it refuses the same edges if it is ever fired some other way.
-- It runs AFTER the update (raising then still undoes the statement): a BEFORE row trigger makes PostgreSQL
-- lock each row before it even evaluates the WHEN clause, one more WAL record per completion.

ALTER TABLE {{schema}}.jobs DROP CONSTRAINT IF EXISTS jobs_state_check;
ALTER TABLE {{schema}}.jobs ADD CONSTRAINT jobs_state_check CHECK (state = ANY ({{job_states}}));

CREATE OR REPLACE FUNCTION {{schema}}.jobs_refuse_illegal_transition() RETURNS trigger
LANGUAGE plpgsql AS $fn$
BEGIN
  IF NOT (OLD.state || '>' || NEW.state) = ANY ({{legal_pairs}}) THEN
    RAISE EXCEPTION 'ojskit: illegal transition % -> % for job %', OLD.state, NEW.state, OLD.id
      USING ERRCODE = 'check_violation', HINT = 'Only the transitions of the OJS lifecycle table are allowed.';
  END IF;
  RETURN NEW;
END
$fn$;

DROP TRIGGER IF EXISTS jobs_refuse_illegal_transition ON {{schema}}.jobs;
CREATE TRIGGER jobs_refuse_illegal_transition
  AFTER UPDATE OF state ON {{schema}}.jobs
  FOR EACH ROW
  WHEN (OLD.state IS DISTINCT FROM NEW.state AND NOT (OLD.state || '>' || NEW.state) = ANY ({{legal_pairs}}))
  EXECUTE FUNCTION {{schema}}.jobs_refuse_illegal_transition();
