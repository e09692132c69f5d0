-- jobHistory: one job's history lines (history-sql.ts), unfinished (jobs) or finished (jobs_finished).
-- Params:   $1 id text
-- Returns:  history text[] (oldest first; NULL: none) and history_dropped integer; no row when unknown.
-- Transition: none.
SELECT history, history_dropped FROM {{schema}}.jobs WHERE id = $1
UNION ALL
SELECT history, history_dropped FROM {{schema}}.jobs_finished WHERE id = $1
LIMIT 1
