-- jobListOverdue: active jobs past min(x.visibleUntil, x.timeoutAt), oldest deadline first.
-- Params:   $1 now numeric, $2 limit int
-- Returns:  doc, x.
-- Transition: none (read only: the rescuer moves them with guarded transitions).
SELECT doc, x FROM {{schema}}.jobs
WHERE state = 'active' AND deadline <= $1::numeric
ORDER BY deadline
LIMIT $2
