// Type-checked as an ES module under `node16` and `bundler` resolution: the packages' types must resolve
// and carry the registry's typing through Client and Worker.
import { Client, Worker, inProcess, type Job } from '@ojskit/client';
import { MemoryDriver } from '@ojskit/memory';
import type { JobState } from '@ojskit/core';
// A subpath export: what an adapter author imports resolves, with its types, under node16 and bundler alike.
import { STATE_SETS, type Driver } from '@ojskit/core/driver';

interface Jobs {
  'email.send': { args: [to: string]; result: { messageId: string } };
}

const driver: Driver = new MemoryDriver();
const api = inProcess(driver);
const client = new Client<Jobs>(api);
const worker = new Worker<Jobs>(api, { queues: ['email'] });
worker.register('email.send', async ({ args: [to] }) => ({ messageId: `msg-${to.toUpperCase()}` }));
const job = await client.enqueue('email.send', ['ada@example.com'], { queue: 'email' });
const done: Job = await client.waitFor(job.id);
const state: JobState = done.state;
const finished: boolean = STATE_SETS.terminal.includes(state);
// @ts-expect-error: the registry types the args
await client.enqueue('email.send', [42]);
export { state, finished };
