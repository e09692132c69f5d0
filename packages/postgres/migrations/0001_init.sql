-- 0001_init: the tables, sequence and indexes of the ojskit Postgres backend.
--
-- Templated by migrate.ts: {{schema}} is the quoted schema name, {{terminal_states}} comes from core's
-- TERMINAL_STATES. The state CHECK constraint and the transition trigger live in lifecycle.sql, which is
-- rendered from core's JOB_STATES / TRANSITIONS and re-applied whenever those change.
--
-- Design: one row per job. The envelope fields and internals the engine reads or changes have columns of
-- their own (see src/job-columns.ts, which lists them), so the hot statements write a few scalars and the
-- indexes read plain columns. Other envelope fields (retry, unique, tags, timeouts, unknown attributes)
-- live in `doc`, other internals in `x_rest`. The caller's data (args, meta, result) and the error record
-- are `json`, which keeps their text as sent: jsonb would reorder object keys and refuse \u0000.
-- Times from the engine (epoch ms) are float8, which holds every JavaScript number exactly.
-- `seq` is the FIFO number a job draws each time it enters `available`; `prev_state` the state before the
-- last guarded transition (what jobTransition reports as `from`).
--
-- Column order: an UPDATE whose new row version stays on the page logs only the bytes between the longest
-- unchanged prefix and the longest unchanged suffix of the row, so the columns a claim or a completion
-- changes sit together, after the fixed-width columns that never change (their offsets, hence their
-- bytes, stay put) and before the variable-length ones that never change. PostgreSQL 15 also compares
-- every indexed column of the old and new version on each UPDATE (to decide on a HOT update), walking the
-- row from its first column for each one: indexed columns come early.

CREATE SEQUENCE {{schema}}.job_seq;

CREATE TABLE {{schema}}.jobs (
  -- Column order is part of the cost of every claim and completion (see "Column order" above).
  -- Fixed-width, never changed by a claim or a completion:
  priority               integer NOT NULL,
  max_attempts           integer NOT NULL,
  seq                    bigint NOT NULL,
  x_due_at               float8,
  x_expires_at           float8,
  x_visibility_ms        float8,
  x_timeout_ms           float8,
  x_unique_until         float8,
  retry_delay_ms         float8,
  x_workflow_index       integer,
  x_dead_letter          boolean,
  -- Indexed text, never changed. Ids compare byte by byte (how UUIDv7 text sorts by creation), not through
  -- the database's locale at every primary-key probe and insert:
  id                     text COLLATE "C" PRIMARY KEY,
  queue                  text NOT NULL,
  x_unique_key           text,
  -- What claims and completions change:
  state                  text NOT NULL,
  attempt                integer NOT NULL,
  x_visible_until        float8,
  x_timeout_at           float8,
  x_claim_visibility_ms  float8,
  x_finished_at          float8,
  worker_id              text,
  started_at             text,
  completed_at           text,
  prev_state             text,
  enqueued_at            text,
  next_attempt_at        text,
  error                  json,
  x_progress             json,
  -- Changed by other transitions (most likely first), then never changed:
  result                 json,
  errors                 json,
  discarded_at           text,
  expired_at             text,
  cancelled_at           text,
  activated_at           text,
  x_rest                 jsonb,
  type                   text NOT NULL,
  args                   json NOT NULL,
  meta                   json NOT NULL,
  created_at             text NOT NULL,
  scheduled_at           text,
  expires_at             text,
  workflow_id            text,
  x_unique_states        text[],
  x_unique_on_conflict   text,
  x_workflow_role        text,
  doc                    jsonb NOT NULL DEFAULT '{}'
) WITH (
  -- Every job row is updated two or more times in its life: leave room on each page, vacuum early and
  -- often, and keep planner statistics fresh (a claim planned without them is much slower).
  fillfactor = 80,
  autovacuum_vacuum_scale_factor = 0.02,
  autovacuum_vacuum_threshold = 1000,
  autovacuum_vacuum_insert_scale_factor = 0.05,
  autovacuum_analyze_scale_factor = 0.02,
  autovacuum_analyze_threshold = 1000,
  autovacuum_vacuum_cost_delay = 1
);

-- The claim path: available jobs per queue, in claim order. Partial, so it only holds claimable rows.
CREATE INDEX jobs_available_idx ON {{schema}}.jobs (queue, priority DESC, seq) WHERE state = {{claimable_state}};
-- Promotion: scheduled and retryable jobs by due time.
CREATE INDEX jobs_due_idx ON {{schema}}.jobs (x_due_at) WHERE state IN ({{due_states}});
-- Rescue: active jobs by min(visibleUntil, timeoutAt).
CREATE INDEX jobs_deadline_idx ON {{schema}}.jobs ((LEAST(x_visible_until, x_timeout_at))) WHERE state = {{claimed_state}};
-- Expiry sweeps.
CREATE INDEX jobs_expiry_idx ON {{schema}}.jobs (x_expires_at)
  WHERE x_expires_at IS NOT NULL AND state IN ({{expirable_states}});
-- Retention pruning.
CREATE INDEX jobs_finished_idx ON {{schema}}.jobs (x_finished_at) WHERE state IN ({{terminal_states}});
-- Unique keys.
CREATE INDEX jobs_unique_idx ON {{schema}}.jobs (x_unique_key) WHERE x_unique_key IS NOT NULL;
-- The dead-letter queue, newest first.
CREATE INDEX jobs_dead_letter_idx ON {{schema}}.jobs (id) WHERE x_dead_letter;

CREATE TABLE {{schema}}.queues (
  name        text PRIMARY KEY,
  paused      boolean NOT NULL DEFAULT false,
  created_at  text NOT NULL,
  paused_at   text,
  resumed_at  text
);

CREATE TABLE {{schema}}.workers (
  id         text PRIMARY KEY,
  directive  text NOT NULL DEFAULT 'running' CHECK (directive IN ('running', 'quiet', 'terminate')),
  doc        jsonb NOT NULL
);

CREATE TABLE {{schema}}.crons (
  name         text PRIMARY KEY,
  doc          jsonb NOT NULL,
  next_run_ms  float8 GENERATED ALWAYS AS ((doc->>'nextRunMs')::float8) STORED
);

CREATE TABLE {{schema}}.workflows (
  id       text PRIMARY KEY,
  version  integer NOT NULL,
  doc      jsonb NOT NULL
);

CREATE TABLE {{schema}}.leases (
  name        text PRIMARY KEY,
  owner       text NOT NULL,
  expires_at  float8 NOT NULL
);

-- Events too large for one NOTIFY payload (8000 bytes): stored here, referenced by id in the notification.
CREATE TABLE {{schema}}.event_overflow (
  id       bigserial PRIMARY KEY,
  at       float8 NOT NULL,
  payload  text NOT NULL
);
