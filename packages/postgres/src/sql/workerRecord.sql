-- workerRecord: stores a worker's heartbeat, keeping the directive an operator set.
-- Params:   $1 id text, $2 record jsonb (WorkerRecord without directive)
-- Returns:  directive, doc.
-- Transition: none.
INSERT INTO {{schema}}.workers AS w (id, doc) VALUES ($1, $2::jsonb)
ON CONFLICT (id) DO UPDATE SET doc = EXCLUDED.doc
RETURNING w.directive, w.doc
