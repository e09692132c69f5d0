/** Events over Redis pub/sub: they cross processes (here: connections), arrive in publish order, and are coalesced. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Engine, makeEvent, type OjsEvent } from '@ojskit/core';
import type { RedisDriver } from '../src/index.js';
import { dispose, redisAvailable, testDriver, uniquePrefix } from './support.js';

const drivers: RedisDriver[] = [];
afterEach(async () => {
  await Promise.all(drivers.splice(0).map((d) => dispose(d)));
});
function driver(prefix: string): RedisDriver {
  const d = testDriver({}, prefix);
  drivers.push(d);
  return d;
}
/** A job event as the engine emits it: alike ones (same type, time, queue, state…) travel as one group. */
const jobEvent = (n: number): OjsEvent =>
  makeEvent('job.started', `job-${n}`, { job_id: `job-${n}`, job_type: 'email.send', queue: 'q', state: 'active', from: 'available', attempt: 1, worker_id: 'w1' }, new Date(0).toISOString());
const event = (n: number): OjsEvent => makeEvent('job.completed', `job-${n}`, { job_id: `job-${n}`, n }, new Date(0).toISOString());

async function until(check: () => boolean, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe.skipIf(!redisAvailable)('RedisEventTransport', () => {
  it('delivers one publisher\'s events to another driver on the same prefix, in order, and to itself once', async () => {
    const prefix = uniquePrefix('ev');
    const a = driver(prefix);
    const b = driver(prefix);
    const atA: number[] = [];
    const atB: number[] = [];
    a.events.subscribe((events) => atA.push(...events.map((e) => e.data.n as number)));
    b.events.subscribe((events) => atB.push(...events.map((e) => e.data.n as number)));
    await Promise.all([a.events.ready(), b.events.ready()]);
    for (let i = 0; i < 50; i++) {
      a.events.publish([event(i)]);
      if (i % 7 === 0) await Promise.resolve();
    }
    await until(() => atB.length === 50);
    expect(atB).toEqual([...Array(50).keys()]);
    expect(atA).toEqual([...Array(50).keys()]);
  });

  it('sends a run of alike job events as one group that arrives as the same events', async () => {
    const prefix = uniquePrefix('ev');
    const a = driver(prefix);
    const b = driver(prefix);
    const seen: OjsEvent[] = [];
    b.events.subscribe((events) => seen.push(...events));
    await b.events.ready();
    const spy = vi.spyOn(a.redis, 'publish');
    const sent = [...Array.from({ length: 40 }, (_, i) => jobEvent(i)), event(99)];
    a.events.publish(sent);
    await until(() => seen.length === sent.length);
    expect(seen).toEqual(sent);
    const message = spy.mock.calls[0]![1] as string;
    // one group for the 40 job events, one item for the other
    expect(JSON.parse(message.slice(message.indexOf('\n') + 1))).toHaveLength(2);
  });

  it('does not see events of another prefix', async () => {
    const a = driver(uniquePrefix('ev'));
    const b = driver(uniquePrefix('ev'));
    const seen: OjsEvent[] = [];
    b.events.subscribe((events) => seen.push(...events));
    await b.events.ready();
    a.events.publish([event(1)]);
    await new Promise((r) => setTimeout(r, 100));
    expect(seen).toEqual([]);
  });

  it('publishes the events of eventPublishDelayMs in one PUBLISH, and hands them to listeners here at once', async () => {
    // a delay long enough for this test's two turns on a loaded machine (the default is 2 ms)
    const a = testDriver({ eventPublishDelayMs: 300 }, uniquePrefix('ev'));
    drivers.push(a);
    const spy = vi.spyOn(a.redis, 'publish');
    const local: OjsEvent[] = [];
    a.events.subscribe((events) => local.push(...events));
    for (let i = 0; i < 100; i++) a.events.publish([event(i)]);
    await new Promise((r) => setImmediate(r));
    expect(local).toHaveLength(100);
    // a second microtask run within the delay joins the same PUBLISH
    for (let i = 100; i < 150; i++) a.events.publish([event(i)]);
    await new Promise((r) => setImmediate(r));
    expect(local).toHaveLength(150);
    expect(spy).toHaveBeenCalledTimes(0);
    await until(() => spy.mock.calls.length > 0);
    await new Promise((r) => setTimeout(r, 20));
    expect(spy).toHaveBeenCalledTimes(1);
    const message = spy.mock.calls[0]![1] as string;
    expect(JSON.parse(message.slice(message.indexOf('\n') + 1))).toHaveLength(150);
  });

  it('publishes each microtask run at once with eventPublishDelayMs 0, and what is waiting on close', async () => {
    const prefix = uniquePrefix('ev');
    const a = testDriver({ eventPublishDelayMs: 0 }, prefix);
    drivers.push(a);
    const now = vi.spyOn(a.redis, 'publish');
    for (let i = 0; i < 10; i++) a.events.publish([event(i)]);
    await Promise.resolve();
    await new Promise((r) => setTimeout(r, 0));
    expect(now).toHaveBeenCalledTimes(1);

    const b = testDriver({ eventPublishDelayMs: 60_000 }, prefix);
    const c = driver(prefix);
    const seen: OjsEvent[] = [];
    c.events.subscribe((events) => seen.push(...events));
    await c.events.ready();
    b.events.publish([event(1), event(2)]);
    await b.close();
    await until(() => seen.length === 2);
    expect(seen.map((e) => e.data)).toEqual([{ job_id: 'job-1', n: 1 }, { job_id: 'job-2', n: 2 }]);
    expect(() => testDriver({ eventPublishDelayMs: -1 })).toThrow();
  });
});

describe.skipIf(!redisAvailable)('one job through two engines', () => {
  it("reaches the claiming engine's subscribers in lifecycle order, though its job.enqueued arrives after the claim", async () => {
    const prefix = uniquePrefix('order');
    // A publishes late (200 ms), so B claims and completes the job before it hears A's job.enqueued.
    const late = testDriver({ eventPublishDelayMs: 200 }, prefix);
    drivers.push(late);
    const producer = new Engine({ driver: late });
    const b = driver(prefix);
    const worker = new Engine({ driver: b, eventOrderWindowMs: 2_000 });
    const seen: string[] = [];
    worker.subscribe({ queues: ['order'] }, (e) => seen.push(e.type));
    await b.events.ready();
    const { job } = await producer.enqueue({ type: 'test.order', queue: 'order', args: [] });
    const { jobs } = await worker.fetch({ queues: ['order'], worker_id: 'w1' });
    expect(jobs.map((j) => j.id)).toEqual([job.id]);
    await worker.ack({ job_id: job.id, result: null });
    expect(seen).toEqual([]); // held: B has not heard how the job began
    await until(() => seen.length === 3);
    expect(seen).toEqual(['job.enqueued', 'job.started', 'job.completed']);
  });
});

describe.skipIf(!redisAvailable)('a FETCH waiting in the engine that enqueues', () => {
  it('wakes on the enqueue itself, not on the transport bringing its event back', async () => {
    const real = driver(uniquePrefix('wake'));
    // The same driver, but its transport never brings anything back: only the engine's own wake-up is left.
    const withheld = Object.create(real) as RedisDriver;
    Object.defineProperty(withheld, 'events', { value: { publish: (events: readonly OjsEvent[]) => real.events.publish(events), subscribe: () => () => {} } });
    const engine = new Engine({ driver: withheld });
    const waiting = engine.fetch({ queues: ['wake'], worker_id: 'w1', wait_ms: 2_000 });
    await new Promise((r) => setTimeout(r, 50)); // the FETCH found nothing and waits
    const { job } = await engine.enqueue({ type: 'test.wake', queue: 'wake', args: [] });
    // Without the wake-up the FETCH would claim the job only when its 2 s wait runs out.
    const early = await Promise.race([waiting, new Promise<'still waiting'>((r) => setTimeout(() => r('still waiting'), 1_000))]);
    expect(early === 'still waiting' ? early : early.jobs.map((j) => j.id)).toEqual([job.id]);
    await engine.stop();
  });
});
