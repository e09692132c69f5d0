-- reset: deletes everything the driver stores (tests, admin reset). Keeps the schema, migrations and partitions.
-- Params:   none.
-- Returns:  nothing.
-- Transition: none.
TRUNCATE {{schema}}.jobs, {{schema}}.jobs_finished, {{schema}}.queues, {{schema}}.workers, {{schema}}.crons,
  {{schema}}.workflows, {{schema}}.leases, {{schema}}.event_overflow, {{schema}}.event_log, {{schema}}.rate_limits
