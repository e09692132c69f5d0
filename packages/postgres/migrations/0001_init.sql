-- 0001_init: the tables, sequence and indexes of the ojskit Postgres backend.
--
-- Templated by migrate.ts: {{schema}} is the quoted schema name, {{terminal_states}} comes from core's
-- TERMINAL_STATES. The state CHECK constraint and the transition trigger live in lifecycle.sql, which is
-- rendered from core's JOB_STATES / TRANSITIONS and re-applied whenever those change.
--
-- Design: `doc` (the OJS envelope, wire-shaped) and `x` (JobInternals) are the only truth; every column
-- the indexes and guards need is GENERATED from them, so a column can never disagree with the document.
-- The caller's own data (`args`, `meta`, `result`) is kept apart as `json`, which stores the text as sent:
-- jsonb would reorder object keys, turn -0 into 0 and refuse \u0000, and those must come back exactly.
-- `seq` is the one real column: the FIFO number a job receives each time it enters `available`.
-- `prev_state` records the state before the last guarded transition (what `jobTransition` reports as `from`).

CREATE SEQUENCE {{schema}}.job_seq;

CREATE TABLE {{schema}}.jobs (
  id            text PRIMARY KEY,
  doc           jsonb NOT NULL,
  x             jsonb NOT NULL,
  args          json NOT NULL,
  meta          json NOT NULL,
  result        json,
  seq           bigint NOT NULL,
  prev_state    text,
  queue         text    GENERATED ALWAYS AS (doc->>'queue') STORED NOT NULL,
  type          text    GENERATED ALWAYS AS (doc->>'type') STORED,
  state         text    GENERATED ALWAYS AS (doc->>'state') STORED NOT NULL,
  priority      integer GENERATED ALWAYS AS ((doc->>'priority')::integer) STORED,
  attempt       integer GENERATED ALWAYS AS ((doc->>'attempt')::integer) STORED,
  worker_id     text    GENERATED ALWAYS AS (doc->>'worker_id') STORED,
  -- Times are epoch ms computed by the engine; numeric keeps fractional ms exact in comparisons.
  due_at        numeric GENERATED ALWAYS AS ((x->>'dueAt')::numeric) STORED,
  expires_at    numeric GENERATED ALWAYS AS ((x->>'expiresAt')::numeric) STORED,
  deadline      numeric GENERATED ALWAYS AS (LEAST((x->>'visibleUntil')::numeric, (x->>'timeoutAt')::numeric)) STORED,
  finished_at   numeric GENERATED ALWAYS AS ((x->>'finishedAt')::numeric) STORED,
  dead_letter   boolean GENERATED ALWAYS AS (COALESCE((x->>'deadLetter')::boolean, false)) STORED,
  unique_key    text    GENERATED ALWAYS AS (x->>'uniqueKey') STORED
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
CREATE INDEX jobs_available_idx ON {{schema}}.jobs (queue, priority DESC, seq) WHERE state = 'available';
-- Promotion: scheduled and retryable jobs by due time.
CREATE INDEX jobs_due_idx ON {{schema}}.jobs (due_at) WHERE state IN ('scheduled', 'retryable');
-- Rescue: active jobs by min(visibleUntil, timeoutAt).
CREATE INDEX jobs_deadline_idx ON {{schema}}.jobs (deadline) WHERE state = 'active';
-- Expiry sweeps.
CREATE INDEX jobs_expiry_idx ON {{schema}}.jobs (expires_at)
  WHERE expires_at IS NOT NULL AND state IN ('scheduled', 'available', 'retryable');
-- Retention pruning.
CREATE INDEX jobs_finished_idx ON {{schema}}.jobs (finished_at) WHERE state IN ({{terminal_states}});
-- Unique keys.
CREATE INDEX jobs_unique_idx ON {{schema}}.jobs (unique_key) WHERE unique_key IS NOT NULL;
-- The dead-letter queue, newest first.
CREATE INDEX jobs_dead_letter_idx ON {{schema}}.jobs (id) WHERE dead_letter;

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
  next_run_ms  numeric GENERATED ALWAYS AS ((doc->>'nextRunMs')::numeric) STORED
);

CREATE TABLE {{schema}}.workflows (
  id       text PRIMARY KEY,
  version  integer NOT NULL,
  doc      jsonb NOT NULL
);

CREATE TABLE {{schema}}.leases (
  name        text PRIMARY KEY,
  owner       text NOT NULL,
  expires_at  numeric NOT NULL
);

-- Events too large for one NOTIFY payload (8000 bytes): stored here, referenced by id in the notification.
CREATE TABLE {{schema}}.event_overflow (
  id       bigserial PRIMARY KEY,
  at       numeric NOT NULL,
  payload  text NOT NULL
);
