-- rateLimitClaim.claim: claims the jobs a limited claim chose; one that left the waiting state meanwhile (a CANCEL)
-- is skipped by the state guard. Variants (rate-limited-claim.ts): available jobs or a dispatch log's delivered ones
-- (rl_waiting_j, rl_claim_set).
-- Params:   $1 ids text[], $2 queues text[] (guard), $3 worker_id text, $4 now float8 (epoch ms), $5 now_iso text,
--           $6 visibility_ms float8 | null (null: each job's x.visibilityMs)
-- Returns:  each claimed job's envelope columns.
-- Transition: available → active (as jobClaim: attempt + 1, started_at, worker_id, visibility and timeout deadlines),
--           or dispatched → active (as jobClaimDispatched).
UPDATE {{schema}}.jobs j SET
  {{rl_claim_set}},
  prev_state = j.state
WHERE j.id = ANY ($1::text[]) AND j.queue = ANY ($2::text[]) AND {{rl_waiting_j}}
RETURNING {{job_envelope_columns_j}}
