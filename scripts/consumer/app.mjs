// An ESM consumer: what a user's app does with the installed tarballs (no TypeScript, no workspace).
import { createRequire } from 'node:module';
import { Client, Worker, inProcess } from '@ojskit/client';
import { MemoryDriver } from '@ojskit/memory';
import { STATE_SETS } from '@ojskit/core/lifecycle';

// CommonJS-style resolvers (bundlers, jest, eslint plugins) must find every package.
const require = createRequire(import.meta.url);
for (const name of ['@ojskit/core', '@ojskit/core/driver', '@ojskit/memory', '@ojskit/client']) require.resolve(name);

const api = inProcess(new MemoryDriver());
const client = new Client(api);
const worker = new Worker(api, { queues: ['email'] });
worker.register('email.send', async ({ args: [to] }) => ({ messageId: `msg-${to}` }));
worker.start();
const job = await client.enqueue('email.send', ['ada@example.com'], { queue: 'email' });
const done = await client.waitFor(job.id, { timeoutMs: 10_000 });
await worker.close();
await api.close();
if (!STATE_SETS.terminal.includes(done.state)) throw new Error(`${done.state} is not in @ojskit/core/lifecycle's terminal set`);
console.log(`esm: ${done.state} ${done.result.messageId}`);
