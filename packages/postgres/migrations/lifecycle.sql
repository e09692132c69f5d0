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

-- A finished row enters `jobs_finished` (or comes back to `jobs`, a dead-letter retry) by an INSERT in the
-- statement that deletes it from the other table; the guards of that statement check the edge, and these
-- triggers refuse, as above, a move along an edge the table lacks (`prev_state` is the state it left). New jobs
-- (prev_state NULL) and in-place changes pass without calling PL/pgSQL.
CREATE OR REPLACE FUNCTION {{schema}}.jobs_refuse_illegal_move() RETURNS trigger
LANGUAGE plpgsql AS $fn$
BEGIN
  IF NEW.prev_state IS NOT NULL AND NEW.prev_state IS DISTINCT FROM NEW.state
     AND NOT (NEW.prev_state || '>' || NEW.state) = ANY ({{legal_pairs}}) THEN
    RAISE EXCEPTION 'ojskit: illegal transition % -> % for job %', NEW.prev_state, NEW.state, NEW.id
      USING ERRCODE = 'check_violation', HINT = 'Only the transitions of the OJS lifecycle table are allowed.';
  END IF;
  RETURN NEW;
END
$fn$;

DROP TRIGGER IF EXISTS jobs_finished_refuse_illegal_move ON {{schema}}.jobs_finished;
CREATE TRIGGER jobs_finished_refuse_illegal_move
  AFTER INSERT ON {{schema}}.jobs_finished
  FOR EACH ROW
  WHEN (NEW.prev_state IS NOT NULL AND NEW.prev_state IS DISTINCT FROM NEW.state
        AND NOT (NEW.prev_state || '>' || NEW.state) = ANY ({{legal_pairs}}))
  EXECUTE FUNCTION {{schema}}.jobs_refuse_illegal_move();

DROP TRIGGER IF EXISTS jobs_refuse_illegal_move ON {{schema}}.jobs;
CREATE TRIGGER jobs_refuse_illegal_move
  AFTER INSERT ON {{schema}}.jobs
  FOR EACH ROW
  WHEN (NEW.prev_state IS NOT NULL AND NEW.prev_state IS DISTINCT FROM NEW.state
        AND NOT (NEW.prev_state || '>' || NEW.state) = ANY ({{legal_pairs}}))
  EXECUTE FUNCTION {{schema}}.jobs_refuse_illegal_move();
