/**
 * The guided scenarios. Each runs its own browser `Worker` on its own queue with a scripted handler, and
 * narrates the edges of core's table it walks. Assertions a user would make by eye are checked here too,
 * so a run that did not show what it promised ends in an error instead of a false "done".
 */
import { NonRetryableError, Worker, type HttpTransport } from '@ojskit/client';
import { OjsError } from '@ojskit/core';
import { sleep } from '../workers/browser-workers.js';
import { pause, waitForState, waitForWorkflow, waitUntil, type Scenario, type ScenarioContext } from './steps.js';

type Handler = (ctx: { args: unknown[]; attempt: number; signal: AbortSignal }) => Promise<unknown>;

/** Starts a worker for `type` on the run's queue; the returned function stops it. */
function startWorker(ctx: ScenarioContext, type: string, handler: Handler, concurrency = 4): () => Promise<void> {
  const worker = new Worker(ctx.api as HttpTransport, { queues: [ctx.queue], concurrency, workerId: `browser-${ctx.queue}` });
  worker.register(type, handler);
  worker.on('error', () => undefined);
  worker.start();
  return () => worker.close({ timeoutMs: 2_000 });
}

async function withWorker<T>(ctx: ScenarioContext, type: string, handler: Handler, body: () => Promise<T>, concurrency?: number): Promise<T> {
  const stop = startWorker(ctx, type, handler, concurrency);
  try {
    return await body();
  } finally {
    await stop();
  }
}

async function enqueue(ctx: ScenarioContext, body: Record<string, unknown>): Promise<string> {
  const { job } = await ctx.api.enqueue({ queue: ctx.queue, ...body });
  ctx.noteJob(job.id);
  ctx.log(`enqueued ${job.type} ${job.id.slice(-8)} → ${job.state}`);
  return job.id;
}

export const SCENARIOS: readonly Scenario[] = [
  {
    id: 'happy-path',
    title: 'Happy path',
    narration: 'new → available (push), available → active (fetch), active → completed (ack).',
    async run(ctx) {
      return withWorker(
        ctx,
        'demo.greet',
        async ({ args }) => {
          await sleep(300);
          return { greeting: `hello ${String(args[0])}` };
        },
        async () => {
          const id = await enqueue(ctx, { type: 'demo.greet', args: ['ada'] });
          const job = await waitForState(ctx, id, ['completed']);
          return `completed with ${JSON.stringify(job.result)}`;
        },
      );
    },
  },
  {
    id: 'retry-backoff',
    title: 'Retry with backoff, then success',
    narration: 'active → retryable (fail, attempts left), retryable → available (timer, after the backoff), then active → completed (ack) on attempt 3.',
    async run(ctx) {
      return withWorker(
        ctx,
        'demo.flaky',
        async ({ attempt }) => {
          await sleep(150);
          if (attempt < 3) throw new Error(`upstream timeout on attempt ${attempt}`);
          return { ok: true, attempt };
        },
        async () => {
          const id = await enqueue(ctx, {
            type: 'demo.flaky',
            args: [],
            retry: { max_attempts: 5, initial_interval: 'PT0.4S', backoff_coefficient: 2, jitter: false },
          });
          const job = await waitForState(ctx, id, ['completed', 'discarded']);
          if (job.state !== 'completed' || job.attempt !== 3) throw new Error(`expected completed on attempt 3, got ${job.state} on ${job.attempt}`);
          return `completed on attempt ${job.attempt} after ${job.errors?.length ?? 0} recorded errors`;
        },
      );
    },
  },
  {
    id: 'dead-letter',
    title: 'Exhaustion → discarded → dead letter → manual retry',
    narration:
      'active → discarded (fail, no attempts left) into the dead-letter queue; then discarded → available (dead_letter_retry) with attempts reset, and active → completed.',
    async run(ctx) {
      let failing = true;
      return withWorker(
        ctx,
        'demo.payment',
        async ({ attempt }) => {
          await sleep(100);
          if (failing) throw new Error(`card gateway down (attempt ${attempt})`);
          return { charged: true };
        },
        async () => {
          const id = await enqueue(ctx, {
            type: 'demo.payment',
            args: [42],
            retry: { max_attempts: 2, initial_interval: 'PT0.2S', jitter: false, on_exhaustion: 'dead_letter' },
          });
          await waitForState(ctx, id, ['discarded']);
          const { jobs } = await waitUntil(ctx, 'the dead-letter entry', async () => {
            const list = await ctx.api.listDeadLetter({ queue: ctx.queue } as never);
            return list.jobs.some((j) => j.id === id) ? list : undefined;
          });
          ctx.log(`dead-letter queue holds ${jobs.length} job(s) of ${ctx.queue}`);
          failing = false;
          const { job: retried } = await ctx.api.retryDeadLetter(id);
          ctx.log(`retried from the dead-letter queue: ${retried.state}, attempt ${retried.attempt}`);
          const done = await waitForState(ctx, id, ['completed']);
          if (done.attempt !== 1) throw new Error(`attempts were not reset: attempt ${done.attempt}`);
          return `completed on attempt ${done.attempt} after the manual retry (attempts reset)`;
        },
      );
    },
  },
  {
    id: 'scheduled',
    title: 'Scheduled job',
    narration: 'new → scheduled (push with a future time), scheduled → available (timer), then fetch and ack.',
    async run(ctx) {
      return withWorker(
        ctx,
        'demo.reminder',
        async () => ({ sent: true }),
        async () => {
          const at = new Date(Date.now() + 2_000).toISOString();
          const id = await enqueue(ctx, { type: 'demo.reminder', args: [], options: { scheduled_at: at } });
          const job = await waitForState(ctx, id, ['completed']);
          return `ran at ${job.started_at ?? '?'} (scheduled for ${at})`;
        },
      );
    },
  },
  {
    id: 'cancel-active',
    title: 'Cancel while active',
    narration: "active → cancelled (cancel): the server records it, and the handler's AbortSignal fires so it stops cooperatively.",
    async run(ctx) {
      let signalFired = false;
      return withWorker(
        ctx,
        'demo.report',
        async ({ signal }) => {
          try {
            await sleep(30_000, signal);
          } catch (reason) {
            signalFired = true;
            throw reason;
          }
        },
        async () => {
          const id = await enqueue(ctx, { type: 'demo.report', args: [] });
          await waitForState(ctx, id, ['active']);
          ctx.log('job is active; cancelling it');
          await ctx.api.cancelJob(id);
          await waitForState(ctx, id, ['cancelled']);
          await waitUntil(ctx, "the handler's signal", async () => (signalFired ? true : undefined), 5_000);
          ctx.log("the handler's AbortSignal fired");
          return 'cancelled while active; the handler saw its signal fire';
        },
      );
    },
  },
  {
    id: 'worker-crash',
    title: 'Worker crash → rescue',
    narration:
      'available → active (fetch by a worker that then vanishes, no heartbeat), active → available (visibility_timeout: the rescuer), then another worker completes it.',
    async run(ctx) {
      const id = await enqueue(ctx, { type: 'demo.resize', args: [] });
      const { jobs } = await ctx.api.fetch({ queues: [ctx.queue], count: 1, worker_id: 'doomed-worker', visibility_timeout_ms: 1_500 });
      if (jobs[0]?.id !== id) throw new Error('the crashing worker did not get the job');
      ctx.log('a worker claimed it and crashed (no heartbeat, no ack); waiting for its reservation to lapse');
      await waitForState(ctx, id, ['available', 'retryable'], 20_000);
      ctx.log('rescued back to the queue; a healthy worker starts');
      return withWorker(
        ctx,
        'demo.resize',
        async () => ({ resized: true }),
        async () => {
          const job = await waitForState(ctx, id, ['completed']);
          return `rescued and completed on attempt ${job.attempt}`;
        },
      );
    },
  },
  {
    id: 'unique-conflict',
    title: 'Unique conflict',
    narration: 'new → available (push) once; the same unique key again is refused with 409 conflict and no second job exists.',
    async run(ctx) {
      const body = { type: 'demo.invoice', args: [7], unique: { keys: ['queue', 'args'], period: 'PT1M' } };
      const id = await enqueue(ctx, body);
      try {
        await ctx.api.enqueue({ queue: ctx.queue, ...body });
      } catch (error) {
        if (error instanceof OjsError) {
          ctx.log(`second enqueue refused: ${error.status} ${error.code}`);
          return `second enqueue refused (${error.code}); job ${id.slice(-8)} is the only one`;
        }
        throw error;
      }
      throw new Error('the duplicate was accepted');
    },
  },
  {
    id: 'paused-queue',
    title: 'Paused queue',
    narration: 'available stays available while its queue is paused (fetch skips it); after resume, available → active → completed.',
    async run(ctx) {
      await ctx.api.pauseQueue(ctx.queue);
      ctx.log(`paused ${ctx.queue}`);
      return withWorker(
        ctx,
        'demo.export',
        async () => ({ exported: true }),
        async () => {
          const id = await enqueue(ctx, { type: 'demo.export', args: [] });
          await pause(ctx, 1_500);
          const { job } = await ctx.api.getJob(id);
          if (job.state !== 'available') throw new Error(`a paused queue's job became ${job.state}`);
          ctx.log('1.5 s later it is still available: a worker is running but the queue is paused');
          await ctx.api.resumeQueue(ctx.queue);
          ctx.log(`resumed ${ctx.queue}`);
          await waitForState(ctx, id, ['completed']);
          return 'held while paused, completed after resume';
        },
      );
    },
  },
  {
    id: 'workflow-failure',
    title: 'Workflow: a failing step stops its dependents',
    narration: 'chain extract → transform → load: transform ends active → discarded (fail, non-retryable); the chain fails and load is never enqueued.',
    async run(ctx) {
      return withWorker(
        ctx,
        'etl.step',
        async ({ args }) => {
          await sleep(200);
          if (args[0] === 'transform') throw new NonRetryableError('bad row 17');
          return { step: args[0] };
        },
        async () => {
          const { workflow } = await ctx.api.createWorkflow({
            type: 'chain',
            name: 'nightly-etl',
            options: { queue: ctx.queue },
            steps: ['extract', 'transform', 'load'].map((step) => ({ type: 'etl.step', args: [step], name: step })),
          });
          ctx.noteWorkflow(workflow.id);
          ctx.log(`started chain ${workflow.id.slice(-8)}`);
          const done = await waitForWorkflow(ctx, workflow.id);
          const members = (done.steps ?? []).map((s) => `${s.index}:${s.state}`).join(' ');
          if (done.state !== 'failed') throw new Error(`expected the chain to fail, it is ${done.state}`);
          return `chain ${done.state}; steps ${members}`;
        },
      );
    },
  },
  {
    id: 'burst',
    title: 'A burst of 10,000 jobs',
    narration: 'new → available × 10,000 in batches, then fetch and ack at full speed: counts stay exact while tokens are sampled.',
    async run(ctx) {
      const total = 10_000;
      return withWorker(
        ctx,
        'demo.burst',
        async () => null,
        async () => {
          const started = performance.now();
          for (let i = 0; i < total; i += 1_000) {
            await ctx.api.enqueueBatch({
              jobs: Array.from({ length: 1_000 }, (_, n) => ({ type: 'demo.burst', args: [i + n], options: { queue: ctx.queue } })),
            });
          }
          ctx.log(`enqueued ${total} in ${Math.round(performance.now() - started)} ms`);
          await waitUntil(
            ctx,
            'every burst job to complete',
            async () => {
              const stats = await ctx.api.queueStats(ctx.queue);
              const counts = stats.stats as unknown as Record<string, number>;
              return counts['completed'] === total ? counts : undefined;
            },
            120_000,
          );
          return `${total} completed in ${((performance.now() - started) / 1000).toFixed(1)} s`;
        },
        50,
      );
    },
  },
];
