// A CommonJS consumer: require() of the ESM-only packages (Node >= 20.19 loads ES modules from require).
const { Client, Worker, inProcess } = require('@ojskit/client');
const { MemoryDriver } = require('@ojskit/memory');
const { OjsError } = require('@ojskit/core');

async function main() {
  const api = inProcess(new MemoryDriver());
  const client = new Client(api);
  const worker = new Worker(api, { queues: ['email'] });
  worker.register('email.send', async ({ args: [to] }) => ({ messageId: `msg-${to}` }));
  worker.start();
  const job = await client.enqueue('email.send', ['ada@example.com'], { queue: 'email' });
  const done = await client.waitFor(job.id, { timeoutMs: 10_000 });
  await worker.close();
  await api.close();
  if (typeof OjsError !== 'function') throw new Error('@ojskit/core did not load');
  console.log(`cjs: ${done.state} ${done.result.messageId}`);
}
main().catch((error) => {
  console.error(error);
  process.exit(1);
});
