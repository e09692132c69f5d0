import pg from 'pg';
import { Engine } from '@ojskit/core';
import { createPostgresDriver } from '@ojskit/postgres';

const url = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/app';

// Connects, applies the migrations (idempotent; `?schema=` picks the schema, default `ojskit`) and starts
// listening for the events of other processes.
const driver = await createPostgresDriver(url);
const engine = new Engine({ driver }).start(); // background services (promote, rescue, expire, cron, prune)

// Transactional enqueue: the job commits or rolls back with your own writes.
const pool = new pg.Pool({ connectionString: url });
const tx = await pool.connect();
await tx.query('BEGIN');
// … your own INSERT / UPDATE statements on `tx` …
const { job } = await engine.enqueue({ type: 'email.send', queue: 'email', args: ['ada@example.com'] }, { tx });
await tx.query('COMMIT');
tx.release();

// A worker's loop: claim a batch, run it, acknowledge it in one round trip.
const { jobs } = await engine.fetch({ queues: ['email'], count: 10, worker_id: 'worker-1' });
await engine.ackMany({ acks: jobs.map((j) => ({ job_id: j.id, result: { sent: j.args[0] } })) });

console.log((await engine.getJob(job.id)).job.state); // completed

await engine.close(); // stops the services, then closes the driver and its pool
await pool.end();
