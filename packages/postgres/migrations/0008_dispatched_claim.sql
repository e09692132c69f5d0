-- 0008_dispatched_claim: the index a dispatch log's store (@ojskit/kafka) claims delivered jobs by
-- (jobClaimDispatched.sql): per queue, the rows in the dispatched state that carry the dispatch marker
-- (x_rest 'dispatchedAt'), by priority, dispatch time, then FIFO seq. Partial: empty, and never written, in a schema
-- without a dispatch log.
CREATE INDEX IF NOT EXISTS jobs_dispatched_idx ON {{schema}}.jobs (queue, priority DESC, ((x_rest ->> 'dispatchedAt')::float8), seq)
  WHERE state = {{dispatched_state}} AND x_rest ? 'dispatchedAt';
