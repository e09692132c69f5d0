-- jobListOverdue: active jobs past min(x.visibleUntil, x.timeoutAt), oldest deadline first.
-- Params:   $1 now float8, $2 limit int
-- Returns:  the jobs' columns ({{job_columns}}).
-- Transition: none (read only: the rescuer moves them with guarded transitions).
SELECT {{job_columns}} FROM {{schema}}.jobs
WHERE state = {{claimed_state}} AND LEAST(x_visible_until, x_timeout_at) <= $1::float8
ORDER BY LEAST(x_visible_until, x_timeout_at)
LIMIT $2
