-- 0002_finished_jobs: finished jobs leave the hot table.
--
-- Templated by migrate.ts: {{schema}} is the quoted schema name, {{terminal_states}} comes from core's
-- TERMINAL_STATES (the states a job finishes in).
--
-- `jobs` keeps unfinished jobs only: the statement that moves a job to a terminal state deletes its row from
-- `jobs` and inserts the finished row into `jobs_finished`, in the same statement (guarded as before). Claims,
-- promotions and rescues then walk a table the size of the backlog, whatever the retention; a finished row is
-- written once and never updated again.
--
-- `jobs_finished` has the columns of `jobs`, in the same order, and is partitioned:
--   jobs_finished                  LIST (x_dead_letter)
--   ├── jobs_dead_letter           true: the dead-letter queue, never dropped by retention (deleted when
--   │                              retried, deleted, or past the dead-letter retention, row by row)
--   └── jobs_done                  false / NULL, RANGE (x_finished_at): one partition per day, created ahead by
--       ├── jobs_done_<yyyymmdd>   the pruner (under its lease) and dropped whole once wholly past the
--       └── jobs_done_default      retention; the default partition catches what no day partition covers
--                                  (rows finished before their day's partition existed, a NULL finish time),
--                                  pruned row by row.
-- The primary key stays on `jobs` (a partitioned table cannot have one without the partition key); ids are
-- found in `jobs_finished` through a per-partition index. A job is in exactly one of the two tables: only the
-- moving statements put it in one and take it out of the other.

CREATE TABLE {{schema}}.jobs_finished (LIKE {{schema}}.jobs INCLUDING DEFAULTS)
  PARTITION BY LIST (x_dead_letter);
ALTER TABLE {{schema}}.jobs_finished ADD CONSTRAINT jobs_finished_state_check CHECK (state IN ({{terminal_states}}));

-- Written once (no updates): full pages; vacuumed for its visibility map after bulk inserts.
CREATE TABLE {{schema}}.jobs_dead_letter PARTITION OF {{schema}}.jobs_finished FOR VALUES IN (true)
  WITH (fillfactor = 100);
CREATE TABLE {{schema}}.jobs_done PARTITION OF {{schema}}.jobs_finished FOR VALUES IN (false, NULL)
  PARTITION BY RANGE (x_finished_at);
CREATE TABLE {{schema}}.jobs_done_default PARTITION OF {{schema}}.jobs_done DEFAULT
  WITH (fillfactor = 100);

-- GET, losers of a transition, duplicate ids, heartbeats: by id, in every partition.
CREATE INDEX jobs_finished_id_idx ON {{schema}}.jobs_finished (id);
-- Unique policies over finished states.
CREATE INDEX jobs_finished_unique_idx ON {{schema}}.jobs_finished (x_unique_key) WHERE x_unique_key IS NOT NULL;
-- Row-by-row pruning where no partition is dropped whole.
CREATE INDEX jobs_dead_letter_finished_idx ON {{schema}}.jobs_dead_letter (x_finished_at);
CREATE INDEX jobs_done_default_finished_idx ON {{schema}}.jobs_done_default (x_finished_at);

-- Existing finished jobs move over (into the dead-letter partition or the default one; the pruner moves the
-- latter into day partitions as it creates them).
INSERT INTO {{schema}}.jobs_finished SELECT * FROM {{schema}}.jobs WHERE state IN ({{terminal_states}});
DELETE FROM {{schema}}.jobs WHERE state IN ({{terminal_states}});

-- The hot table now refuses finished rows: a statement that finished a job in place would fail loudly.
ALTER TABLE {{schema}}.jobs ADD CONSTRAINT jobs_unfinished_check CHECK (state NOT IN ({{terminal_states}}));

-- Indexes of finished rows in the hot table have nothing left to hold.
DROP INDEX {{schema}}.jobs_finished_idx;
DROP INDEX {{schema}}.jobs_dead_letter_idx;

ANALYZE {{schema}}.jobs_finished;
