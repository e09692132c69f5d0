/** Events over Redis pub/sub: they cross processes (here: connections), arrive in publish order, and are coalesced. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Engine, type OjsEvent } from '@ojskit/core';
import { makeEvent } from '@ojskit/core/testing';
import type { RedisDriver } from '../src/index.js';
import { PRESENCE_PROBE_MS as PROBE_MS } from '@ojskit/core/driver';
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

/** The event messages among a spied `publish`'s calls (hellos and their answers left out). */
function eventMessages(calls: ReadonlyArray<readonly unknown[]>): string[] {
  return calls.map((call) => String(call[1])).filter((message) => message.charAt(message.indexOf('\n') + 1) === '[');
}

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
    await a.events.ready();
    const published = () => eventMessages(spy.mock.calls);
    for (let i = 0; i < 100; i++) a.events.publish([event(i)]);
    await new Promise((r) => setImmediate(r));
    expect(local).toHaveLength(100);
    // a second microtask run within the delay joins the same PUBLISH
    for (let i = 100; i < 150; i++) a.events.publish([event(i)]);
    await new Promise((r) => setImmediate(r));
    expect(local).toHaveLength(150);
    expect(published()).toHaveLength(0);
    await until(() => published().length > 0);
    await new Promise((r) => setTimeout(r, 20));
    expect(published()).toHaveLength(1);
    const message = published()[0]!;
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
    // that PUBLISH reached Redis (a reply on the same connection comes after its own), before c below listens:
    // a connection still opening holds it back, and c would hear these ten too
    await a.redis.ping();

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

describe.skipIf(!redisAvailable)('a process no other process listens to', () => {
  /** Publishes one event and waits until its PUBLISH has answered (and been counted). */
  async function publishOne(d: RedisDriver, n: number): Promise<void> {
    d.events.publish([event(n)]);
    await new Promise((r) => setTimeout(r, 30));
  }

  it('stops publishing once a PUBLISH reaches only itself, and publishes again once another process says hello', async () => {
    const prefix = uniquePrefix('alone');
    const a = testDriver({ eventPublishDelayMs: 0 }, prefix);
    drivers.push(a);
    const local: number[] = [];
    a.events.subscribe((events) => local.push(...events.map((e) => e.data.n as number)));
    await a.events.ready();
    const spy = vi.spyOn(a.redis, 'publish');
    expect(a.events.quiet).toBe(false); // nobody counted yet
    await publishOne(a, 0); // reaches only a's own subscriber
    expect(a.events.quiet).toBe(true); // the engine's hub keeps a's events itself now
    await publishOne(a, 1);
    await publishOne(a, 2);
    expect(eventMessages(spy.mock.calls)).toHaveLength(1);
    expect(local).toEqual([0, 1, 2]); // listeners here hear everything either way

    const b = driver(prefix);
    const atB: number[] = [];
    b.events.subscribe((events) => atB.push(...events.map((e) => e.data.n as number)));
    await b.events.ready(); // b's hello was heard and answered
    expect(a.events.quiet).toBe(false);
    a.events.publish([event(3)]);
    await until(() => atB.length === 1);
    expect(atB).toEqual([3]);
    await publishOne(a, 4);
    await until(() => atB.length === 2);
    expect(atB).toEqual([3, 4]);
    expect(eventMessages(spy.mock.calls)).toHaveLength(3);
    expect(local).toEqual([0, 1, 2, 3, 4]);
  });

  it('publishes again within PROBE_MS for a subscriber that never says hello', async () => {
    const prefix = uniquePrefix('alone');
    const a = testDriver({ eventPublishDelayMs: 0 }, prefix);
    drivers.push(a);
    a.events.subscribe(() => {});
    await a.events.ready();
    await publishOne(a, 0);
    const spy = vi.spyOn(a.redis, 'publish');
    // A plain client subscribing (redis-cli, another tool): no hello.
    const plain = a.redis.duplicate();
    const heard: string[] = [];
    plain.on('message', (_channel: string, message: string) => heard.push(message));
    await plain.subscribe(`${prefix}:events`);
    try {
      await publishOne(a, 1);
      expect(eventMessages(spy.mock.calls)).toHaveLength(0); // still quiet
      await new Promise((r) => setTimeout(r, PROBE_MS));
      await publishOne(a, 2); // the probe: counts two listeners
      await publishOne(a, 3);
      await until(() => heard.length === 2);
      expect(heard.map((m) => (JSON.parse(m.slice(m.indexOf('\n') + 1)) as unknown[]).length)).toEqual([1, 1]);
      expect(eventMessages(spy.mock.calls)).toHaveLength(2);
    } finally {
      await plain.quit();
    }
  });

  it('is not quiet while events it was handed wait for their delivery here', async () => {
    const a = testDriver({ eventPublishDelayMs: 0 }, uniquePrefix('alone'));
    drivers.push(a);
    const local: number[] = [];
    a.events.subscribe((events) => local.push(...events.map((e) => e.data.n as number)));
    await a.events.ready();
    await publishOne(a, 0);
    expect(a.events.quiet).toBe(true);
    a.events.publish([event(1)]);
    // delivered at the end of the microtask run: an event the hub kept at once meanwhile would overtake it
    expect(a.events.quiet).toBe(false);
    await Promise.resolve();
    expect(local).toEqual([0, 1]);
    expect(a.events.quiet).toBe(true);
  });

  it('keeps publishing with publishEventsWhenAlone', async () => {
    const a = testDriver({ eventPublishDelayMs: 0, publishEventsWhenAlone: true }, uniquePrefix('alone'));
    drivers.push(a);
    a.events.subscribe(() => {});
    await a.events.ready();
    const spy = vi.spyOn(a.redis, 'publish');
    for (let n = 0; n < 3; n++) await publishOne(a, n);
    expect(eventMessages(spy.mock.calls)).toHaveLength(3);
    expect(a.events.quiet).toBe(false);
  });
});
