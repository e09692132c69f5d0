-- 0009_dispatched_rate_limits: rate limits on a dispatch log's store (@ojskit/kafka). Its claim takes the jobs the
-- log delivered (jobClaimDispatched.sql), and when a queue holds rate limits it claims under the rate_limits locks
-- as the plain claim does (rate-limited-claim.ts). This index is that claim's "anything limited here?" probe and
-- its key discovery over delivered jobs, as jobs_rate_limited_idx is over available ones. Partial: empty, and never
-- written, in a schema without a dispatch log.
CREATE INDEX IF NOT EXISTS jobs_rate_limited_dispatched_idx ON {{schema}}.jobs (queue, priority DESC, ((x_rest ->> 'dispatchedAt')::float8), seq)
  WHERE state = {{dispatched_state}} AND x_rest ? 'dispatchedAt' AND x_rest ? 'rateLimit';
