-- cronUpsert: creates or replaces a cron registration.
-- Params:   $1 name text, $2 record jsonb (CronRecord)
-- Returns:  created (bool: no cron had that name).
-- Transition: none.
INSERT INTO {{schema}}.crons AS c (name, doc) VALUES ($1, $2::jsonb)
ON CONFLICT (name) DO UPDATE SET doc = EXCLUDED.doc
RETURNING (xmax = 0) AS created
