-- 0005_rate_limits: what the claim needs to enforce rate limits (spec/rate-limits.md).
--
-- A job's limit lives in x_rest ('rateLimit': {intervalMs?, concurrency?, key?}, core's ClaimLimit); a queue's in
-- queues.config (rate_limit, concurrency). `rate_limits` holds one row per queue ('q:<queue>': its last limited
-- claim, in ms of the database clock, and the spacing it kept) and per concurrency key ('k:<key>'): a claim that
-- may take a limited job locks the rows of its queues and keys (FOR UPDATE, in name order) before it counts,
-- so concurrent claims never both take the last slot. A key's count is the number of its jobs in the claimed
-- state, read under that lock: derived from the jobs' states, nothing to release when a job leaves it.
CREATE TABLE IF NOT EXISTS {{schema}}.rate_limits (
  name           text COLLATE "C" PRIMARY KEY,
  last_claim_at  float8,
  interval_ms    float8
);
-- Available limited jobs per queue, in claim order: the plain claim's "anything limited here?" probe and the
-- limited claim's key discovery.
CREATE INDEX IF NOT EXISTS jobs_rate_limited_idx ON {{schema}}.jobs (queue, priority DESC, seq)
  WHERE state = {{claimable_state}} AND x_rest ? 'rateLimit';
-- Active jobs per concurrency key (the count the rule compares with the limit).
CREATE INDEX IF NOT EXISTS jobs_rate_key_active_idx ON {{schema}}.jobs ((x_rest -> 'rateLimit' ->> 'key'))
  WHERE state = {{claimed_state}} AND x_rest ? 'rateLimit';
