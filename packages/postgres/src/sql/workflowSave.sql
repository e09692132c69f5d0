-- workflowSave: writes a workflow document under its version guard (the caller's transaction then inserts
-- the workflow's jobs, so both commit or neither).
-- Params:   $1 id text, $2 version int (new), $3 doc jsonb, $4 expect_version int|null (null: create)
-- Returns:  one row when written; none when the guard failed (the id exists on create, or another version).
-- Transition: none (compare-and-set on version).
WITH created AS (
  INSERT INTO {{schema}}.workflows (id, version, doc)
  SELECT $1, $2::int, $3::jsonb WHERE $4::int IS NULL
  ON CONFLICT (id) DO NOTHING
  RETURNING id
),
updated AS (
  UPDATE {{schema}}.workflows SET version = $2::int, doc = $3::jsonb
  WHERE id = $1 AND $4::int IS NOT NULL AND version = $4::int
  RETURNING id
)
SELECT id FROM created UNION ALL SELECT id FROM updated
