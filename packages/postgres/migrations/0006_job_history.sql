-- 0006_job_history: each job's history (ojskit extension x-job-history), as two columns of its row
-- (src/history-sql.ts has the line format and the bound).
--
-- `history` holds the job's lines, oldest first, at most MAX_HISTORY_ENTRIES (core); `history_dropped` counts
-- the oldest lines let go past that bound (NULL: none). The statement that changes a job's state appends its
-- line to the row it updates, or to the row it moves into the other table, so a line is written exactly when
-- the guarded change happens. The lines travel with the row from `jobs` to `jobs_finished` (a move inserts
-- every column) and are gone with it when retention deletes the row or drops its partition.
-- Nullable without a default: adding them rewrites no row. Jobs stored before this migration have no lines
-- for their earlier transitions.
ALTER TABLE {{schema}}.jobs ADD COLUMN IF NOT EXISTS history text[], ADD COLUMN IF NOT EXISTS history_dropped integer;
ALTER TABLE {{schema}}.jobs_finished ADD COLUMN IF NOT EXISTS history text[], ADD COLUMN IF NOT EXISTS history_dropped integer;
