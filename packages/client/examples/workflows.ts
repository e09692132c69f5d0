/** Batches of jobs, workflows (chain, group, batch) and middleware. */
import { Client, Worker, batch, chain, inProcess, step } from '@ojskit/client';
import { MemoryDriver } from '@ojskit/memory';

export async function main() {
  const api = inProcess(new MemoryDriver());
  const client = new Client(api);
  const worker = new Worker(api);
  const timings: string[] = [];

  // #region middleware
  worker.use(async (ctx, next) => {
    const started = Date.now();
    try {
      return await next(); // the handler's result (a middleware may also replace it)
    } finally {
      timings.push(`${ctx.job.type} took ${Date.now() - started} ms`);
    }
  });
  // #endregion middleware

  // #region handlers
  worker
    .register('order.validate', ({ args: [order] }) => ({ ...(order as object), valid: true }))
    .register('order.charge', ({ job }) => `charged ${JSON.stringify(job.parentResults?.[0])}`) // earlier steps' results
    .register('thumbnail', ({ args: [n] }) => `thumb-${String(n)}`)
    .register('album.publish', ({ job }) => job.parentResults) // a batch callback sees every member's result
    .start();
  // #endregion handlers

  // #region many
  // All or nothing: if one job is invalid, none is stored.
  const jobs = await client.enqueueMany([
    { type: 'thumbnail', args: [1] },
    { type: 'thumbnail', args: [2], options: { priority: 10 } },
  ]);
  // #endregion many

  // #region workflows
  const order = await client.workflows.start(chain([step('order.validate', [{ id: 7 }]), step('order.charge')], { name: 'checkout' }));
  const album = await client.workflows.start(batch([step('thumbnail', [1]), step('thumbnail', [2])], { onComplete: step('album.publish') }));
  // #endregion workflows

  let checkout = await client.workflows.get(order.id);
  while (checkout.state === 'running') checkout = (await new Promise((r) => setTimeout(r, 20)), await client.workflows.get(order.id));
  let published = await client.workflows.get(album.id);
  while (published.state === 'running') published = (await new Promise((r) => setTimeout(r, 20)), await client.workflows.get(album.id));
  const charge = await client.waitFor(checkout.members[1]!.jobId!);
  await Promise.all(jobs.map((j) => client.waitFor(j.id)));
  await worker.close();
  await api.close();
  return { jobs, checkout, published, charge, timings };
}
