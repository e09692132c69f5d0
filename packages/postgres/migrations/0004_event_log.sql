-- 0004_event_log: the event log. Every batch of events published on the schema's channel is also a row here,
-- in the statement that sends its NOTIFY (so inside a caller's transaction it exists only if that commits). A
-- LISTEN connection that was lost reads what it missed from here, and a Last-Event-ID that fell out of a
-- process's in-memory window is looked up here; the publishers trim it to about eventLogMaxRows rows.
CREATE TABLE IF NOT EXISTS {{schema}}.event_log (
  seq      bigserial PRIMARY KEY,
  -- clock_timestamp() in epoch ms when the row was written: replay finds an event id's row by its time.
  at       float8 NOT NULL,
  payload  text NOT NULL
);
CREATE INDEX IF NOT EXISTS event_log_at ON {{schema}}.event_log (at);
