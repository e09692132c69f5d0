-- jobPrune.filtered: deletes, row by row, finished jobs older than a retention horizon that are narrowed by state,
-- by queue or to the dead letters: the pruner's calls for the retentions shorter than the longest one in force
-- (a terminal state's own, a queue configuration's). Day partitions are never dropped for them (they hold every
-- queue and state), so such rows are deleted inside the partitions: a retention shorter than the partition span
-- costs a scan of the partitions not yet past the longest retention (they have no finish-time index).
-- Params:   $1 before float8 (x.finishedAt < before), $2 limit int (per table), $3 dead_letter text ('exclude',
--           'include', 'only'), $4 state text | null, $5 queue text | null, $6 except_queues text[] (ignored with $5)
-- Returns:  pruned (int).
-- Transition: none (finished rows are deleted).
WITH doomed_done AS (
  SELECT id FROM {{schema}}.jobs_done
  WHERE $3::text <> 'only' AND x_finished_at < $1::float8
    AND ($4::text IS NULL OR state = $4::text)
    AND (CASE WHEN $5::text IS NULL THEN queue <> ALL ($6::text[]) ELSE queue = $5::text END)
  LIMIT $2
  FOR UPDATE SKIP LOCKED
),
gone_done AS (
  DELETE FROM {{schema}}.jobs_done j USING doomed_done d WHERE j.id = d.id RETURNING 1
),
doomed_dead AS (
  SELECT id FROM {{schema}}.jobs_dead_letter
  WHERE $3::text <> 'exclude' AND x_finished_at < $1::float8
    AND ($4::text IS NULL OR state = $4::text)
    AND (CASE WHEN $5::text IS NULL THEN queue <> ALL ($6::text[]) ELSE queue = $5::text END)
  ORDER BY x_finished_at
  LIMIT $2
  FOR UPDATE SKIP LOCKED
),
gone_dead AS (
  DELETE FROM {{schema}}.jobs_dead_letter j USING doomed_dead d WHERE j.id = d.id RETURNING 1
)
SELECT ((SELECT count(*) FROM gone_done) + (SELECT count(*) FROM gone_dead))::int AS pruned
