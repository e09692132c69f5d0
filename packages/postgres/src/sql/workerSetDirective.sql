-- workerSetDirective: sets the directive a worker receives on its next heartbeat. A worker not seen yet
-- gets a placeholder record (its state is the directive) that its first heartbeat overwrites.
-- Params:   $1 id text, $2 directive text, $3 placeholder jsonb (used only when the worker is unknown)
-- Returns:  directive, doc.
-- Transition: none.
INSERT INTO {{schema}}.workers AS w (id, directive, doc) VALUES ($1, $2, $3::jsonb)
ON CONFLICT (id) DO UPDATE SET directive = EXCLUDED.directive
RETURNING w.directive, w.doc
