-- jobInsert.skipExisting: as jobInsert, but a row whose id exists is skipped (workflow re-drives).
-- Params:   $1 rows jsonb: [{ id, doc, x, args, meta, result }] (doc without args/meta/result, which
--           travel as JSON text so they are stored verbatim), $2 now_iso text
-- Returns:  id of each stored row.
-- Transition: (new) → the state in each doc.
WITH rows AS (
  SELECT r.id, r.doc, r.x, r.args::json AS args, r.meta::json AS meta, r.result::json AS result
  FROM jsonb_to_recordset($1::jsonb) AS r(id text, doc jsonb, x jsonb, args text, meta text, result text)
),
new_queues AS (
  INSERT INTO {{schema}}.queues (name, created_at)
  SELECT DISTINCT doc->>'queue', $2::text FROM rows
  ON CONFLICT (name) DO NOTHING
)
INSERT INTO {{schema}}.jobs (id, doc, x, args, meta, result, seq)
SELECT id, doc, x, args, meta, result, nextval('{{schema}}.job_seq') FROM rows
ON CONFLICT (id) DO NOTHING
RETURNING id
