// A consumer app's worker against a running gateway: enqueue over HTTP, process it here, print the result.
import { Client, Worker, http } from '@ojskit/client';

const api = http(process.env.OJS_URL);
const client = new Client(api);
const worker = new Worker(api, { queues: ['first-hour'] });
worker.register('greet', async ({ args: [name] }) => `hello ${name}`);
worker.start();
const job = await client.enqueue('greet', ['ada'], { queue: 'first-hour' });
const done = await client.waitFor(job.id, { timeoutMs: 15_000 });
await worker.close();
console.log(`worker: ${done.state} ${done.result}`);
