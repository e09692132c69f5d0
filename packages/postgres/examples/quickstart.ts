import pg from 'pg';
import { Client, Worker, inProcess } from '@ojskit/client';
import { createPostgresDriver } from '@ojskit/postgres';

const url = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/app';

// Connects, applies the migrations (idempotent; `?schema=` picks the schema, default `ojskit`) and starts
// listening for the events of other processes.
const driver = await createPostgresDriver(url);
const api = inProcess(driver); // the engine in this process; its background services run under leases
const client = new Client(api);

// Transactional enqueue: the engine's own enqueue takes your transaction, so the job commits or rolls back
// with your own writes.
const pool = new pg.Pool({ connectionString: url });
const tx = await pool.connect();
await tx.query('BEGIN');
// … your own INSERT / UPDATE statements on `tx` …
const { job } = await api.enqueue({ type: 'email.send', args: ['ada@example.com'], options: { queue: 'email' } }, { tx });
await tx.query('COMMIT');
tx.release();

// The SDK worker claims batches, runs the handlers and acknowledges them together.
const worker = new Worker(api, { queues: ['email'], concurrency: 10 });
worker.register('email.send', async ({ args: [to] }) => ({ sent: to }));
worker.start();

const done = await client.waitFor(job.id);
console.log(done.state); // completed

await worker.close();
await api.close(); // stops the services, then closes the driver and its pool
await pool.end();
