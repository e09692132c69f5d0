/**
 * Events over a Redis Stream: they cross processes (here: connections), arrive in publish order, are coalesced,
 * survive a Redis restart, and a cursor is resumed from the stream by an engine that never saw it.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Engine, type OjsEvent } from '@ojskit/core';
import { makeEvent } from '@ojskit/core/testing';
import type { RedisDriver } from '../src/index.js';
import { RedisDriver as Driver } from '../src/index.js';
import { PrivateRedis, redisServerAvailable } from './private-redis.js';
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
  makeEvent(
    'job.started',
    `job-${n}`,
    { job_id: `job-${n}`, job_type: 'email.send', queue: 'q', state: 'active', from: 'available', attempt: 1, worker_id: 'w1' },
    new Date(0).toISOString(),
  );
const event = (n: number): OjsEvent => makeEvent('job.completed', `job-${n}`, { job_id: `job-${n}`, n }, new Date(0).toISOString());

/** The entries (`<publisher>\n[items]`) among a spied `xadd`'s calls: XADD key MAXLEN ~ n * m <entry>. */
function eventMessages(calls: ReadonlyArray<readonly unknown[]>): string[] {
  return calls.map((call) => String(call.at(-1)));
}

async function until(check: () => boolean, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe.skipIf(!redisAvailable)('RedisEventTransport', () => {
  it("delivers one publisher's events to another driver on the same prefix, in order, and to itself once", async () => {
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
    const spy = vi.spyOn(a.redis, 'xadd');
    const sent = [...Array.from({ length: 40 }, (_, i) => jobEvent(i)), event(99)];
    a.events.publish(sent);
    await until(() => seen.length === sent.length);
    expect(seen).toEqual(sent);
    const message = eventMessages(spy.mock.calls)[0]!;
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

  it('appends the events of eventPublishDelayMs in one XADD, and hands them to listeners here at once', async () => {
    // a delay long enough for this test's two turns on a loaded machine (the default is 2 ms)
    const a = testDriver({ eventPublishDelayMs: 300 }, uniquePrefix('ev'));
    drivers.push(a);
    const spy = vi.spyOn(a.redis, 'xadd');
    const local: OjsEvent[] = [];
    a.events.subscribe((events) => local.push(...events));
    await a.events.ready();
    const published = () => eventMessages(spy.mock.calls);
    for (let i = 0; i < 60; i++) a.events.publish([event(i)]);
    await new Promise((r) => setImmediate(r));
    expect(local).toHaveLength(60);
    // a second microtask run within the delay joins the same XADD
    for (let i = 60; i < 90; i++) a.events.publish([event(i)]);
    await new Promise((r) => setImmediate(r));
    expect(local).toHaveLength(90);
    expect(published()).toHaveLength(0);
    await until(() => published().length > 0);
    await new Promise((r) => setTimeout(r, 20));
    expect(published()).toHaveLength(1);
    const message = published()[0]!;
    expect(JSON.parse(message.slice(message.indexOf('\n') + 1))).toHaveLength(90);
  });

  it('splits what it appends into entries of at most 16 KiB, in order', async () => {
    const prefix = uniquePrefix('ev');
    const a = testDriver({ eventPublishDelayMs: 0 }, prefix);
    drivers.push(a);
    const b = driver(prefix);
    const seen: number[] = [];
    b.events.subscribe((events) => seen.push(...events.map((e) => e.data.n as number)));
    await b.events.ready();
    const spy = vi.spyOn(a.redis, 'xadd');
    a.events.publish(Array.from({ length: 1_000 }, (_, i) => event(i)));
    await until(() => seen.length === 1_000);
    expect(seen).toEqual([...Array(1_000).keys()]);
    const entries = eventMessages(spy.mock.calls);
    expect(entries.length).toBeGreaterThan(1);
    for (const entry of entries) expect(entry.length).toBeLessThanOrEqual(16_384 + 64);
  });

  it('appends each microtask run at once with eventPublishDelayMs 0, and what is waiting on close', async () => {
    const prefix = uniquePrefix('ev');
    const a = testDriver({ eventPublishDelayMs: 0 }, prefix);
    drivers.push(a);
    const now = vi.spyOn(a.redis, 'xadd');
    for (let i = 0; i < 10; i++) a.events.publish([event(i)]);
    await Promise.resolve();
    await new Promise((r) => setTimeout(r, 0));
    expect(now).toHaveBeenCalledTimes(1);
    // that XADD reached Redis (a reply on the same connection comes after its own) before c below starts
    // reading at the stream's end, so c does not read these ten
    await a.redis.ping();

    const b = testDriver({ eventPublishDelayMs: 60_000 }, prefix);
    const c = driver(prefix);
    const seen: OjsEvent[] = [];
    c.events.subscribe((events) => seen.push(...events));
    await c.events.ready();
    b.events.publish([event(1), event(2)]);
    await b.close();
    await until(() => seen.length === 2);
    expect(seen.map((e) => e.data)).toEqual([
      { job_id: 'job-1', n: 1 },
      { job_id: 'job-2', n: 2 },
    ]);
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

describe.skipIf(!redisAvailable)('the event stream', () => {
  it('is trimmed to about eventStreamMaxLen entries', async () => {
    const a = testDriver({ eventPublishDelayMs: 0, eventStreamMaxLen: 100 }, uniquePrefix('trim'));
    drivers.push(a);
    for (let i = 0; i < 1_000; i++) {
      a.events.publish([event(i)]);
      await new Promise((r) => setImmediate(r));
    }
    await until(() => a.events.backlog === 0);
    const length = await a.redis.xlen(`${a.prefix}:events`);
    // MAXLEN ~ trims whole macro nodes (100 entries each by default): never below the bound, never far above
    expect(length).toBeGreaterThanOrEqual(100);
    expect(length).toBeLessThan(300);
  });

  it('resumes a cursor this engine never saw from the stream, and expires one trimmed away', async () => {
    const prefix = uniquePrefix('resume');
    const a = driver(prefix);
    const producer = new Engine({ driver: a });
    const ids: string[] = [];
    producer.subscribe({ queues: ['resume'] }, (e) => ids.push(e.id));
    await a.events.ready();
    for (let i = 0; i < 30; i++) await producer.enqueue({ type: 'test.resume', queue: 'resume', args: [i] });
    await until(() => ids.length === 30 && a.events.backlog === 0);
    // An engine started afterwards: its window is empty, the stream holds the events.
    const b = driver(prefix);
    const late = new Engine({ driver: b });
    const page = await late.pollEvents({ after: ids[9]!, limit: 15 });
    expect(page.cursor_expired).toBeUndefined();
    expect(page.events.map((e) => e.id)).toEqual(ids.slice(10, 25));
    expect(page.has_more).toBe(true);
    const rest = await late.pollEvents({ after: page.cursor!, limit: 100 });
    expect(rest.events.map((e) => e.id)).toEqual(ids.slice(25));
    expect(rest.has_more).toBe(false);
    // filters apply to what the stream gives back
    const none = await late.pollEvents({ after: ids[0]!, types: ['job.completed'], limit: 10 });
    expect(none).toMatchObject({ events: [], has_more: false, cursor: ids[29] });
    // an id the stream does not hold (trimmed, or never there) is expired, as before
    const gone = await late.pollEvents({ after: 'evt_00000000-0001-7000-8000-000000000001', limit: 10 });
    expect(gone.cursor_expired).toBe(true);
    await producer.stop();
    await late.stop();
  });
});

describe.skipIf(!redisServerAvailable)('events across a Redis restart (private redis-server)', () => {
  let server: PrivateRedis | undefined;
  afterEach(async () => {
    await server?.stop();
    server = undefined;
  });

  it('loses no event published while Redis is down or just back, and resumes a cursor from before the restart', async () => {
    server = await PrivateRedis.start(['--appendonly', 'yes', '--appendfsync', 'always']);
    const options = { url: server.url, prefix: 'restart', checkMemoryPolicy: false, eventPublishDelayMs: 0, logger: { warn: () => {}, error: () => {} } };
    const a = new Driver(options);
    const b = new Driver(options);
    const seen: number[] = [];
    const seenIds: string[] = [];
    b.events.subscribe((events) => {
      for (const e of events) {
        seen.push(e.data.n as number);
        seenIds.push(e.id);
      }
    });
    await b.events.ready();
    const sent: OjsEvent[] = [];
    const send = (n: number): void => {
      const e = event(n);
      sent.push(e);
      a.events.publish([e]);
    };
    try {
      for (let n = 0; n < 50; n++) send(n);
      await until(() => seen.length === 50, 10_000);
      await server.kill();
      // Published while Redis is down: kept and appended once it is back.
      for (let n = 50; n < 75; n++) send(n);
      await new Promise((r) => setTimeout(r, 300));
      await server.launch();
      // Published right after it came back, before either connection is necessarily up again (the case
      // pub/sub lost: the subscriber had not re-subscribed yet).
      for (let n = 75; n < 100; n++) send(n);
      await until(() => seen.length >= 100, 20_000);
      expect(seen).toEqual([...Array(100).keys()]);
      // A third process, started now, resumes from a cursor of before the restart out of the stream.
      const c = new Driver(options);
      const late = new Engine({ driver: c });
      const page = await late.pollEvents({ after: sent[20]!.id, limit: 1_000 });
      expect(page.cursor_expired).toBeUndefined();
      expect(page.events.map((e) => e.data.n)).toEqual([...Array(79).keys()].map((k) => k + 21));
      await late.stop();
      await c.close();
    } finally {
      await a.close();
      await b.close();
    }
  }, 60_000);
});
