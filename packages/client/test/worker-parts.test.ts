/** Worker parts on their own: option validation, the middleware chain, the wake latch, held jobs, events, and ACK batching paths. */
import { describe, expect, it } from 'vitest';
import { MemoryDriver } from '@ojskit/memory';
import { Engine, type Job as WireJob } from '@ojskit/core';
import { AckBatcher } from '../src/worker/ack-batcher.js';
import { compose } from '../src/worker/middleware.js';
import { resolveWorkerOptions } from '../src/worker/options.js';
import { WakeSignal } from '../src/worker/wake-signal.js';
import { RecentIds } from '../src/worker/recent-ids.js';
import { HeldJobs } from '../src/worker/held-jobs.js';
import { TypedEmitter } from '../src/worker/typed-emitter.js';
import { DEEP_BATCHES, DEEP_FETCH_BATCHES, PrefetchDepth } from '../src/worker/prefetch-depth.js';
import { JobLostError, Worker, type JobContext, type Transport } from '../src/index.js';

describe('worker options', () => {
  it('fills in defaults derived from other options', () => {
    const options = resolveWorkerOptions({ concurrency: 4, visibilityTimeoutMs: 9_000, fetchBatchSize: 50 });
    expect(options).toMatchObject({
      queues: ['default'],
      concurrency: 4,
      heartbeatIntervalMs: 3_000,
      fetchBatchSize: 4,
      prefetch: 4,
      pollWaitMs: 1_000,
      ackBatch: { maxSize: 500, maxDelayMs: 5 },
    });
    expect(options.workerId).toMatch(/^worker-/);
    // A single-slot worker holds no job it cannot run unless asked to; an explicit prefetch wins.
    expect(resolveWorkerOptions({ concurrency: 1 }).prefetch).toBe(0);
    expect(resolveWorkerOptions({ concurrency: 8, fetchBatchSize: 3 }).prefetch).toBe(3);
    expect(resolveWorkerOptions({ concurrency: 1, prefetch: 2 }).prefetch).toBe(2);
    // Fetches larger than the concurrency only with an explicit prefetch, and never beyond both together.
    expect(resolveWorkerOptions({ concurrency: 50, prefetch: 500, fetchBatchSize: 250 }).fetchBatchSize).toBe(250);
    expect(resolveWorkerOptions({ concurrency: 50, prefetch: 100, fetchBatchSize: 250 }).fetchBatchSize).toBe(150);
  });

  it('rejects bad options with a TypeError naming the field', () => {
    expect(() => resolveWorkerOptions({ concurrency: 0 })).toThrow(/concurrency/);
    expect(() => resolveWorkerOptions({ queues: [] })).toThrow(/queues/);
    expect(() => resolveWorkerOptions({ pollWaitMs: 5_000 })).toThrow(/pollWaitMs/);
    expect(() => resolveWorkerOptions({ idleBackoff: { minMs: 100, maxMs: 10 } })).toThrow(/idleBackoff/);
    expect(() => resolveWorkerOptions({ concurency: 3 } as never)).toThrow(TypeError);
  });
});

describe('prefetch depth', () => {
  it('holds one batch until handlers are measured faster than a fetch round trip, then several', () => {
    const depth = new PrefetchDepth(50, true);
    expect(depth.value).toBe(50); // nothing measured yet
    depth.fetched(2);
    depth.handled(0.01);
    expect(depth.value).toBe(50 * DEEP_BATCHES);
    // Handlers slow down past the round trip: back to one batch (the averages follow within a few samples).
    for (let i = 0; i < 20; i++) depth.handled(30);
    expect(depth.value).toBe(50);
  });

  it('fetches more per call while deep, unless a prefetch or a fetch batch size was configured', () => {
    const depth = new PrefetchDepth(50, true, true);
    expect(depth.fetchSize(50)).toBe(50);
    depth.fetched(2);
    depth.handled(0.01);
    expect(depth.fetchSize(50)).toBe(50 * DEEP_FETCH_BATCHES);
    for (let i = 0; i < 20; i++) depth.handled(30);
    expect(depth.fetchSize(50)).toBe(50);
    const sized = new PrefetchDepth(50, true, false);
    sized.fetched(2);
    sized.handled(0.01);
    expect(sized.value).toBe(50 * DEEP_BATCHES);
    expect(sized.fetchSize(20)).toBe(20);
    expect(resolveWorkerOptions({ concurrency: 8 }).adaptiveFetch).toBe(true);
    expect(resolveWorkerOptions({ concurrency: 8, fetchBatchSize: 4 }).adaptiveFetch).toBe(false);
    expect(resolveWorkerOptions({ concurrency: 8, prefetch: 7 }).adaptiveFetch).toBe(false);
  });

  it('keeps a configured prefetch as it is', () => {
    const depth = new PrefetchDepth(7, false);
    depth.fetched(5);
    depth.handled(0.01);
    expect(depth.value).toBe(7);
    expect(resolveWorkerOptions({ concurrency: 8, prefetch: 7 }).adaptivePrefetch).toBe(false);
    expect(resolveWorkerOptions({ concurrency: 8 }).adaptivePrefetch).toBe(true);
    expect(resolveWorkerOptions({ concurrency: 1 }).adaptivePrefetch).toBe(false);
  });
});

describe('middleware chain', () => {
  it('refuses a middleware that calls next() twice', async () => {
    const chain = compose([async (_ctx, next) => (await next(), next())], () => 'x');
    await expect(chain({} as JobContext)).rejects.toThrow(/more than once/);
  });

  it('lets a middleware short-circuit the handler', async () => {
    let ran = false;
    const chain = compose([() => 'cached'], () => ((ran = true), 'fresh'));
    expect(await chain({} as JobContext)).toBe('cached');
    expect(ran).toBe(false);
  });
});

describe('wake latch', () => {
  it('remembers a notify that came before the wait', async () => {
    const wake = new WakeSignal();
    wake.notify();
    const started = performance.now();
    await wake.wait(1_000);
    expect(performance.now() - started).toBeLessThan(50);
  });
});

describe('shutdown of an idle worker', () => {
  it('ends its long-polling fetch at once instead of waiting out pollWaitMs', async () => {
    const engine = new Engine({ driver: new MemoryDriver() });
    const worker = new Worker(engine, { queues: ['idle'], pollWaitMs: 2_000 });
    worker.register('t', () => null);
    worker.start();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(worker.stats.fetchCalls).toBe(1);
    const started = performance.now();
    await worker.close();
    // Anything short of the 2 s poll it would otherwise wait out (a loaded machine took 1.09 s).
    expect(performance.now() - started).toBeLessThan(1_900);
    // Nothing enqueued after the close is claimed by the abandoned fetch.
    const { job } = await engine.enqueue({ type: 't', args: [], options: { queue: 'idle' } });
    expect((await engine.getJob(job.id)).job.state).toBe('available');
    await engine.close();
  });
});

describe('an idle worker and job.enqueued events', () => {
  it('makes one long-polling fetch per job: the event of a job its fetch is being handed sends it fetching for nothing', async () => {
    const engine = new Engine({ driver: new MemoryDriver() });
    const worker = new Worker(engine, { queues: ['events'], pollWaitMs: 2_000 });
    worker.register('t', () => null);
    let completed = 0;
    worker.on('completed', () => (completed += 1));
    worker.start();
    await new Promise((resolve) => setTimeout(resolve, 50));
    for (let i = 0; i < 5; i++) {
      const { job } = await engine.enqueue({ type: 't', args: [i], options: { queue: 'events' } });
      for (let t = 0; t < 200 && (await engine.getJob(job.id)).job.state !== 'completed'; t++) await new Promise((r) => setTimeout(r, 5));
    }
    expect(completed).toBe(5);
    // The first fetch, then one per job (its answer and the job's event arrive together on this engine).
    // The fetch after the last job leaves a turn or two after its ACK: wait for it, then for any other.
    await expect.poll(() => worker.stats.fetchCalls, { timeout: 2_000, interval: 5 }).toBe(6);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(worker.stats.fetchCalls).toBe(6);
    await worker.close();
    await engine.close();
  });

  it('remembers the ids it fetched lately, forgetting the oldest', () => {
    const ids = new RecentIds(2);
    ids.add('a');
    ids.add('b');
    ids.add('c');
    expect([ids.has('a'), ids.has('b'), ids.has('c')]).toEqual([false, true, true]);
  });

  it('keeps the latest ids through many turns of its ring, and an id added again keeps its place', () => {
    const ids = new RecentIds(3);
    for (let i = 0; i < 10; i++) ids.add(`j${i}`);
    ids.add('j8');
    expect(['j6', 'j7', 'j8', 'j9'].map((id) => ids.has(id))).toEqual([false, true, true, true]);
    ids.add('j10');
    expect(['j7', 'j8', 'j9', 'j10'].map((id) => ids.has(id))).toEqual([false, true, true, true]);
  });
});

describe('held jobs', () => {
  const job = (id: string, attempt = 1) => ({ id, attempt }) as WireJob;

  it('hands jobs out oldest first, skipping dropped ones; a newer attempt of a held job goes to the back', () => {
    const held = new HeldJobs();
    const a2 = job('a', 2);
    for (const id of ['a', 'b', 'c', 'd']) held.add(job(id));
    held.delete('b');
    held.delete('a');
    held.add(a2);
    expect(held.size).toBe(3);
    expect([...held.ids()]).toEqual(['c', 'd', 'a']);
    expect([held.shift()?.id, held.shift()?.id, held.shift()]).toEqual(['c', 'd', a2]);
    expect([held.shift(), held.size]).toEqual([undefined, 0]);
  });

  it('stays in order across many jobs taken and held again', () => {
    const held = new HeldJobs();
    let next = 0;
    const out: string[] = [];
    for (let i = 0; i < 5_000; i++) {
      held.add(job(`j${next++}`));
      held.add(job(`j${next++}`));
      out.push(held.shift()!.id);
    }
    out.push(...held.clear().map((j) => j.id));
    expect(out).toEqual(Array.from({ length: next }, (_, i) => `j${i}`));
    expect(held.size).toBe(0);
  });
});

describe('worker events', () => {
  class Emitter extends TypedEmitter<{ tick: [n: number] }> {
    fire(n: number): void {
      this.emit('tick', n);
    }
  }

  it('calls the listeners an emit started with, even those removed meanwhile, and not those added meanwhile', () => {
    const emitter = new Emitter();
    const calls: string[] = [];
    const late = () => calls.push('late');
    let offSecond = () => {};
    emitter.on('tick', () => {
      calls.push('first');
      offSecond();
      emitter.on('tick', late);
    });
    offSecond = emitter.on('tick', () => calls.push('second'));
    emitter.once('tick', () => calls.push('once'));
    emitter.fire(1);
    expect(calls).toEqual(['first', 'second', 'once']);
    calls.length = 0;
    emitter.fire(2);
    expect(calls).toEqual(['first', 'late']);
    expect(emitter.listenerCount('tick')).toBe(2);
  });
});

describe('ACK batching', () => {
  const setup = async (hideAckMany: boolean) => {
    const engine = new Engine({ driver: new MemoryDriver() });
    let singles = 0;
    let batches = 0;
    const api = new Proxy(engine, {
      get(target, property, receiver) {
        if (property === 'ackMany') return hideAckMany ? undefined : (...a: [never]) => ((batches += 1), target.ackMany(...a));
        if (property === 'ack') return (...a: [unknown]) => ((singles += 1), target.ack(...a));
        return Reflect.get(target, property, receiver);
      },
    }) as unknown as Transport;
    await engine.enqueueBatch({ jobs: Array.from({ length: 5 }, () => ({ type: 't', args: [] })) });
    const { jobs } = await engine.fetch({ queues: ['default'], count: 5, worker_id: 'w' });
    return { engine, api, jobs, counts: () => ({ singles, batches }) };
  };

  it('sends waiting ACKs in one ackMany call once the batch is full', async () => {
    const { engine, api, jobs, counts } = await setup(false);
    const acks = new AckBatcher(api, 'w', { maxSize: 5, maxDelayMs: 10_000 });
    await Promise.all(jobs.map((job, i) => acks.ack(job.id, job.attempt, i)));
    expect(counts()).toEqual({ singles: 0, batches: 1 });
    expect((await engine.getJob(jobs[3]!.id)).job).toMatchObject({ state: 'completed', result: 3 });
    await engine.close();
  });

  it('falls back to concurrent single ACKs when the transport has no ackMany, flushed by the timer', async () => {
    const { engine, api, jobs, counts } = await setup(true);
    const acks = new AckBatcher(api, 'w', { maxSize: 100, maxDelayMs: 5 });
    await Promise.all(jobs.map((job) => acks.ack(job.id, job.attempt, null)));
    expect(counts()).toEqual({ singles: 5, batches: 0 });
    expect(acks.stats).toEqual({ calls: 5, acked: 5 });
    await engine.close();
  });

  it('reports each refused ACK of a batch on its own', async () => {
    const { engine, api, jobs } = await setup(false);
    await engine.cancelJob(jobs[1]!.id);
    const acks = new AckBatcher(api, 'w', { maxSize: 100, maxDelayMs: 1 });
    const results = await Promise.allSettled(jobs.map((job) => acks.ack(job.id, job.attempt, null)));
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason).toMatchObject({ code: 'conflict' });
    await engine.close();
  });

  it.each([1, 2])('keeps up to maxInFlight (%i) batches out at once; later ACKs wait for an answer', async (maxInFlight) => {
    const { engine, jobs } = await setup(false);
    const sent: number[] = [];
    const answers: Array<() => void> = [];
    const api = new Proxy(engine, {
      get(target, property, receiver) {
        if (property !== 'ackMany') return Reflect.get(target, property, receiver);
        return (request: { acks: unknown[] }) => {
          sent.push(request.acks.length);
          return new Promise((resolve) => answers.push(() => resolve(target.ackMany(request))));
        };
      },
    }) as unknown as Transport;
    const turn = () => new Promise((resolve) => setImmediate(resolve));
    const acks = new AckBatcher(api, 'w', { maxSize: 100, maxDelayMs: 10_000, maxInFlight });
    const first = acks.ack(jobs[0]!.id, 1, null);
    await turn();
    const second = acks.ack(jobs[1]!.id, 1, null);
    await turn();
    // The second ACK leaves at once only when there is room for a second batch in flight.
    expect(sent).toEqual(maxInFlight === 1 ? [1] : [1, 1]);
    answers.shift()!();
    await first;
    await turn();
    expect(sent).toEqual([1, 1]);
    answers.shift()!();
    await second;
    expect((await engine.getJob(jobs[1]!.id)).job.state).toBe('completed');
    await engine.close();
  });

  it('withdraws an ACK not sent yet', async () => {
    const { engine, api, jobs } = await setup(false);
    const acks = new AckBatcher(api, 'w', { maxSize: 100, maxDelayMs: 10_000 });
    const pending = acks.ack(jobs[0]!.id, 1, null);
    expect(acks.withdraw(jobs[0]!.id, new JobLostError(jobs[0]!.id, 'active'))).toBe(true);
    await expect(pending).rejects.toBeInstanceOf(JobLostError);
    await acks.flush();
    expect((await engine.getJob(jobs[0]!.id)).job.state).toBe('active');
    await engine.close();
  });
});
