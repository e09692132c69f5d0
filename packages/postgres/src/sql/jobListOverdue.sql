-- jobListOverdue: active jobs past min(x.visibleUntil, x.timeoutAt), oldest deadline first.
-- Params:   $1 now numeric, $2 limit int
-- Returns:  doc, args, meta, result, x.
-- Transition: none (read only: the rescuer moves them with guarded transitions).
SELECT doc, args, meta, result::text AS result, x FROM {{schema}}.jobs
WHERE state = 'active' AND deadline <= $1::numeric
ORDER BY deadline
LIMIT $2
