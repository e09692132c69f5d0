// A gateway over the memory backend, and a client and a worker talking to it over HTTP.
import { Client, Worker, http } from '@ojskit/client';
import { MemoryDriver } from '@ojskit/memory';
import { createGateway, startGateway } from '@ojskit/gateway';

const gateway = createGateway({ backend: new MemoryDriver(), logger: false });
const server = await startGateway(gateway, { port: Number(process.env['PORT'] ?? 8080), host: '127.0.0.1' });

const api = http(server.url); // any OJS server works here
const worker = new Worker(api, { queues: ['email'], concurrency: 4 });
worker.register('email.send', async ({ args: [to] }) => ({ sentTo: to }));
worker.start();

const client = new Client(api);
const job = await client.enqueue('email.send', ['ada@example.com'], { queue: 'email' });
const done = await client.waitFor(job.id, { timeoutMs: 10_000 });
console.log(done.state, done.result); // completed { sentTo: 'ada@example.com' }

await worker.close();
await api.close();
await server.shutdown(); // stops fetching, finishes in-flight requests, closes the backend
