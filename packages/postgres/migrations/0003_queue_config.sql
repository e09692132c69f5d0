-- 0003_queue_config: a queue's configuration (admin PUT /ojs/v1/admin/queues/:name/config): backpressure
-- bound, concurrency, retention, as the driver's QueueConfigRecord (JSON). NULL: never configured.
ALTER TABLE {{schema}}.queues ADD COLUMN IF NOT EXISTS config jsonb;
