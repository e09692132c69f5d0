-- jobClaim.awaitPromotions: waits until no other statement holds a due job of the queues (run after a claim
-- reported 'missed': jobs it could not take because another statement held them). Available jobs are not
-- waited for (a lock on them, even FOR SHARE, would make other claims skip them): the claim simply runs again.
-- Params:   $1 queues text[], $2 now float8 (epoch ms)
-- Returns:  held (int): how many are still due once their holders finished (the next claim promotes them).
-- Transition: none. FOR SHARE waits for the holders to finish (a row they promoted is then no longer due);
--           the driver runs this with a lock_timeout, so a row held for long delays a FETCH by that much at most.
SELECT count(*)::int AS held FROM (
  SELECT 1 FROM {{schema}}.jobs s
  WHERE s.state IN ({{due_states}}) AND s.x_due_at <= $2::float8 AND s.queue = ANY ($1::text[])
  LIMIT 1000
  FOR SHARE
) AS due
