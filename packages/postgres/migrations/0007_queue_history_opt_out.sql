-- 0007_queue_history_opt_out: the queues whose configuration says "history": false (spec/history.md H9).
--
-- Every statement that writes a history line first asks which queues opt out, in one uncorrelated subquery
-- (src/history-sql.ts historyOffSql) that PostgreSQL runs once per statement. This partial index holds just
-- those queues, so the question costs a probe of an index that is usually empty, however many queues there are,
-- instead of a scan of every queue's configuration at each claim and ACK.
CREATE INDEX IF NOT EXISTS queues_history_off_idx ON {{schema}}.queues (name) WHERE config @> '{"history": false}';
