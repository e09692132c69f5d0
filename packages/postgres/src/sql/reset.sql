-- reset: deletes everything the driver stores (tests, admin reset). Keeps the schema and migrations.
-- Params:   none.
-- Returns:  nothing.
-- Transition: none.
TRUNCATE {{schema}}.jobs, {{schema}}.queues, {{schema}}.workers, {{schema}}.crons, {{schema}}.workflows,
  {{schema}}.leases, {{schema}}.event_overflow
