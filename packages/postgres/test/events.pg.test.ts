/** LISTEN/NOTIFY events: across processes, split under the 8000-byte limit, oversized ones by reference, transactional. */
import { Engine, type OjsEvent } from '@ojskit/core';
import { makeEvent, ManualClock } from '@ojskit/core/testing';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MAX_PAYLOAD_BYTES, packEvent, packPayloads, PgEventTransport, unpackEvent, type PgEventTransportOptions } from '../src/event-transport.js';
import type { PostgresDriver } from '../src/postgres-driver.js';
import { HAVE_PG, openTestDatabase, type TestDatabase } from './support/database.js';
import { settle, waitFor } from './support/wait.js';

const event = (n: number, padding = 0): OjsEvent =>
  makeEvent('job.progress', `job-${n}`, { job_id: `job-${n}`, n, pad: 'x'.repeat(padding) }, new Date(Date.UTC(2026, 0, 1)).toISOString());

function collect(driver: PostgresDriver): OjsEvent[] {
  const seen: OjsEvent[] = [];
  driver.events!.subscribe((events) => seen.push(...events));
  return seen;
}

describe('packEvent', () => {
  it('sends the usual event positionally and gets it back equal, key order included', () => {
    const e = event(1, 10);
    const packed = packEvent(e);
    expect(packed.length).toBeLessThan(JSON.stringify(e).length);
    const back = unpackEvent(JSON.parse(packed));
    expect(back).toEqual(e);
    expect(Object.keys(back)).toEqual(Object.keys(e));
  });

  it('packs a job event (standard data first, extras kept in order) and other sources', () => {
    const job = makeEvent(
      'job.completed',
      'j1',
      { job_id: 'j1', job_type: 't', queue: 'q', state: 'completed', from: 'active', attempt: 1, result: { a: [1] }, duration_ms: 3 },
      new Date(0).toISOString(),
      'ojs://ojskit/engine',
    );
    const back = unpackEvent(JSON.parse(packEvent(job)));
    expect(back).toEqual(job);
    expect(Object.keys(back.data)).toEqual(Object.keys(job.data));
    const elsewhere = makeEvent('queue.paused', 'q', { queue: 'q' }, new Date(0).toISOString(), 'ojs://elsewhere');
    expect(unpackEvent(JSON.parse(packEvent(elsewhere)))).toEqual(elsewhere);
    const odd = makeEvent(
      'job.started',
      'j2',
      { job_id: 'other', job_type: 't', queue: 'q', state: 'active', from: 'available', attempt: 1 },
      new Date(0).toISOString(),
    );
    expect(unpackEvent(JSON.parse(packEvent(odd)))).toEqual(odd);
  });

  it('sends an event with other fields as it is', () => {
    const e = { ...event(2), traceparent: '00-abc' } as OjsEvent;
    expect(unpackEvent(JSON.parse(packEvent(e)))).toEqual(e);
  });
});

describe('packPayloads', () => {
  it('keeps every payload under the NOTIFY limit and the items in order', () => {
    const items = Array.from({ length: 100 }, (_, i) => JSON.stringify({ i, pad: 'y'.repeat(300) }));
    const payloads = packPayloads(items, '{"e":');
    expect(payloads.length).toBeGreaterThan(1);
    for (const p of payloads) expect(Buffer.byteLength(p)).toBeLessThanOrEqual(MAX_PAYLOAD_BYTES);
    expect(payloads.flatMap((p) => (JSON.parse(p) as { e: Array<{ i: number }> }).e.map((x) => x.i))).toEqual(items.map((_, i) => i));
  });

  it('counts bytes, not characters', () => {
    const items = Array.from({ length: 10 }, () => JSON.stringify('é'.repeat(1_000)));
    for (const p of packPayloads(items, '{"e":')) expect(Buffer.byteLength(p)).toBeLessThanOrEqual(MAX_PAYLOAD_BYTES);
  });
});

describe.runIf(HAVE_PG)('PgEventTransport', () => {
  let db: TestDatabase;
  let other: PostgresDriver;
  beforeEach(async () => {
    db = await openTestDatabase();
    other = db.peer();
    await other.events!.listen();
  });
  afterEach(async () => {
    await db.drop();
  });

  it('delivers a process its own events at once, and once; other processes through the channel', async () => {
    const mine = collect(db.driver);
    const theirs = collect(other);
    db.driver.events!.publish([event(1), event(2)]);
    expect(mine.map((e) => e.data['n'])).toEqual([1, 2]);
    db.driver.events!.publish([event(3)]);
    await waitFor(() => theirs.length === 3, 5_000, 'the peer to receive 3 events');
    expect(theirs.map((e) => e.data['n'])).toEqual([1, 2, 3]);
    await settle();
    expect(mine.map((e) => e.data['n'])).toEqual([1, 2, 3]);
  });

  it("one job through two engines reaches the claiming engine's subscribers in lifecycle order, though its job.enqueued arrives after the claim", async () => {
    // The producer publishes late (200 ms), so the worker claims and completes the job before it hears job.enqueued.
    const producer = new Engine({ driver: db.peer({ eventPublishDelayMs: 200 }) });
    const worker = new Engine({ driver: other, eventOrderWindowMs: 2_000 });
    const seen: string[] = [];
    worker.subscribe({ queues: ['order'] }, (e) => seen.push(e.type));
    const { job } = await producer.enqueue({ type: 'test.order', queue: 'order', args: [] });
    const { jobs } = await worker.fetch({ queues: ['order'], worker_id: 'w1' });
    expect(jobs.map((j) => j.id)).toEqual([job.id]);
    await worker.ack({ job_id: job.id, result: null });
    expect(seen).toEqual([]); // held: the worker has not heard how the job began
    await waitFor(() => seen.length === 3, 5_000, 'the three events');
    expect(seen).toEqual(['job.enqueued', 'job.started', 'job.completed']);
  });

  it('publishes the events of eventPublishDelayMs in one statement, handing them to its own listeners at once', async () => {
    // a delay long enough for this test's two turns on a loaded machine (the default is 2 ms)
    const slow = await openTestDatabase({ eventPublishDelayMs: 300 });
    try {
      const peer = slow.peer();
      await peer.events!.listen();
      const theirs = collect(peer);
      const mine = collect(slow.driver);
      const sql = (slow.driver as unknown as { sql: { run: (...args: unknown[]) => unknown } }).sql;
      const run = vi.spyOn(sql, 'run');
      const publishes = () => run.mock.calls.filter((call) => call[1] === 'eventPublish').length;
      slow.driver.events!.publish([event(1)]);
      await new Promise((r) => setImmediate(r));
      slow.driver.events!.publish([event(2)]);
      await new Promise((r) => setImmediate(r));
      expect(mine.map((e) => e.data['n'])).toEqual([1, 2]);
      expect(publishes()).toBe(0);
      await waitFor(() => theirs.length === 2, 5_000, 'the peer to receive 2 events');
      expect(theirs.map((e) => e.data['n'])).toEqual([1, 2]);
      expect(publishes()).toBe(1);
    } finally {
      await slow.drop();
    }
    const bad = { sql: { schema: 's' }, publishDelayMs: -1 } as unknown as PgEventTransportOptions;
    expect(() => new PgEventTransport(bad)).toThrow(TypeError);
  });

  it('splits a large batch over several notifications, in order', async () => {
    const theirs = collect(other);
    const events = Array.from({ length: 300 }, (_, i) => event(i, 400));
    db.driver.events!.publish(events);
    await waitFor(() => theirs.length === 300, 10_000, '300 events');
    expect(theirs.map((e) => e.data['n'])).toEqual(events.map((_, i) => i));
  });

  it('sends an event larger than a payload by reference through event_overflow', async () => {
    const theirs = collect(other);
    db.driver.events!.publish([event(1), event(2, 20_000), event(3)]);
    await waitFor(() => theirs.length === 3, 5_000, '3 events');
    expect(theirs.map((e) => e.data['n'])).toEqual([1, 2, 3]);
    expect(theirs[1]!.data['pad']).toHaveLength(20_000);
  });

  it("publishes inside a caller's transaction only if it commits, to every process alike", async () => {
    const mine = collect(db.driver);
    const theirs = collect(other);
    const client = await db.pool.connect();
    try {
      await client.query('BEGIN');
      await db.driver.events!.publish([event(1), event(2, 20_000)], client);
      await client.query('ROLLBACK');
      await client.query('BEGIN');
      await db.driver.events!.publish([event(3)], client);
      await settle(100);
      expect(mine).toEqual([]); // nothing before the commit
      await client.query('COMMIT');
    } finally {
      client.release();
    }
    await waitFor(() => mine.length === 1 && theirs.length === 1, 5_000, 'the committed event');
    await settle();
    expect(mine.map((e) => e.data['n'])).toEqual([3]);
    expect(theirs.map((e) => e.data['n'])).toEqual([3]);
  });

  it("shows one engine's transitions on another engine's subscription (two gateways, one database)", async () => {
    const clock = new ManualClock();
    const a = new Engine({ driver: db.driver, clock });
    const b = new Engine({ driver: other, clock });
    const seen: string[] = [];
    b.subscribe({}, (e) => seen.push(e.type));
    const { job } = await a.enqueue({ type: 'email.send', queue: 'ev', args: [] });
    await a.fetch({ queues: ['ev'], worker_id: 'w' });
    await a.ack({ job_id: job.id });
    await waitFor(() => seen.length === 3, 5_000, 'three events on the other engine');
    expect(seen).toEqual(['job.enqueued', 'job.started', 'job.completed']);
    const polled = await b.pollEvents({});
    expect(polled.events.map((e) => e.type)).toEqual(['job.enqueued', 'job.started', 'job.completed']);
  });
});

describe.runIf(HAVE_PG)('PgEventTransport event log', () => {
  let db: TestDatabase;
  beforeEach(async () => {
    db = await openTestDatabase();
  });
  afterEach(async () => {
    await db.drop();
  });

  it('loses no event published while its LISTEN connection is down: the new connection reads them from the log, once', async () => {
    const listener = db.peer();
    const seen = collect(listener);
    await listener.events!.listen();
    // The publisher keeps publishing whoever listens, so its events reach the log while the listener is away.
    const publisher = db.peer({ publishEventsWhenAlone: true, eventPublishDelayMs: 0 });
    publisher.events!.publish([event(1)]);
    await waitFor(() => seen.length === 1, 5_000, 'the first event');
    const pid = (listener.events as unknown as { client: { processID: number } }).client.processID;
    await db.pool.query('SELECT pg_terminate_backend($1)', [pid]);
    await waitFor(() => !listener.events!.listening, 5_000, 'the LISTEN connection to drop');
    for (let n = 2; n <= 6; n++) {
      publisher.events!.publish([event(n)]);
      await settle(20);
    }
    await waitFor(() => seen.length >= 6, 10_000, 'the events sent while the connection was down');
    publisher.events!.publish([event(7)]);
    await waitFor(() => seen.length >= 7, 5_000, 'a live event after the reconnect');
    await settle();
    expect(seen.map((e) => e.data['n'])).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it('resumes a cursor this engine never saw from the log, and expires one trimmed away', async () => {
    const producer = new Engine({ driver: db.peer({ publishEventsWhenAlone: true, eventPublishDelayMs: 0 }) });
    const ids: string[] = [];
    producer.subscribe({ queues: ['resume'] }, (e) => ids.push(e.id));
    for (let i = 0; i < 30; i++) {
      await producer.enqueue({ type: 'test.resume', queue: 'resume', args: [i] });
      await settle(5);
    }
    expect(ids).toHaveLength(30);
    // An engine started afterwards: its window is empty, the log holds the events.
    const late = new Engine({ driver: db.peer() });
    const page = await late.pollEvents({ after: ids[9]!, limit: 15 });
    expect(page.cursor_expired).toBeUndefined();
    expect(page.events.map((e) => e.id)).toEqual(ids.slice(10, 25));
    expect(page.has_more).toBe(true);
    const rest = await late.pollEvents({ after: page.cursor!, limit: 100 });
    expect(rest.events.map((e) => e.id)).toEqual(ids.slice(25));
    expect(rest.has_more).toBe(false);
    // an id the log does not hold (never there) is expired
    expect((await late.pollEvents({ after: 'evt_00000000-0001-7000-8000-000000000001', limit: 10 })).cursor_expired).toBe(true);
    // trimmed: a publisher bounded to 3 rows trims behind itself, and the first cursors fall out of the log
    const trimming = new Engine({ driver: db.peer({ publishEventsWhenAlone: true, eventPublishDelayMs: 0, eventLogMaxRows: 3 }) });
    for (let i = 0; i < 5; i++) {
      await trimming.enqueue({ type: 'test.resume', queue: 'resume', args: [i] });
      await settle(20);
    }
    const rows = async (): Promise<number> => (await db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${db.schema}.event_log`)).rows[0]!.n;
    for (let i = 0; i < 50 && (await rows()) > 4; i++) await settle(100);
    expect(await rows()).toBeLessThanOrEqual(4);
    expect((await late.pollEvents({ after: ids[0]!, limit: 10 })).cursor_expired).toBe(true);
    await producer.stop();
    await trimming.stop();
    await late.stop();
  });
});

describe.runIf(HAVE_PG)('PgEventTransport with no other process listening', () => {
  /** The eventPublish statements a driver ran with events in them (hellos and answers left out). */
  function spyPublishes(driver: PostgresDriver): () => number {
    const sql = (driver as unknown as { sql: { run: (...args: unknown[]) => unknown } }).sql;
    const run = vi.spyOn(sql, 'run');
    return () => run.mock.calls.filter((call) => call[1] === 'eventPublish' && String((call[2] as unknown[])[1]).includes('"e":')).length;
  }
  /** Publishes one event and gives its NOTIFY and the listener count after it time to happen. */
  async function publishOne(driver: PostgresDriver, n: number): Promise<void> {
    driver.events!.publish([event(n)]);
    await new Promise((resolve) => setTimeout(resolve, 80));
  }
  const listeners = async (db: TestDatabase) =>
    (
      await db.pool.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 1
      AND classid = ((hashtextextended($1, 0) >> 32) & 4294967295)::oid AND objid = (hashtextextended($1, 0) & 4294967295)::oid`,
        [`ojskit:listen:${db.schema}`],
      )
    ).rows[0]!.n;

  it('stops sending NOTIFYs once it counts no other listener, and sends them again once another process listens', async () => {
    const db = await openTestDatabase();
    try {
      const mine = collect(db.driver);
      const publishes = spyPublishes(db.driver);
      await publishOne(db.driver, 1); // published, then the count finds this session alone
      await publishOne(db.driver, 2);
      await publishOne(db.driver, 3);
      expect(publishes()).toBe(1);
      expect(mine.map((e) => e.data['n'])).toEqual([1, 2, 3]); // its own listeners hear everything
      expect(db.driver.events!.quiet).toBe(true); // the engine's hub keeps its events itself now

      const peer = db.peer();
      const theirs = collect(peer);
      await peer.events!.listen(); // its hello was heard and answered
      expect(await listeners(db)).toBe(2);
      expect(db.driver.events!.quiet).toBe(false);
      db.driver.events!.publish([event(4)]);
      await waitFor(() => theirs.length === 1, 5_000, 'the peer to hear event 4');
      expect(theirs.map((e) => e.data['n'])).toEqual([4]);
      expect(publishes()).toBe(2);

      // A listener's lock goes with its session: alone again, the driver goes quiet at its next count.
      await peer.close();
      expect(await listeners(db)).toBe(1);
    } finally {
      await db.drop();
    }
  });

  it("still publishes inside a caller's transaction (its own subscribers hear those only from the channel)", async () => {
    const db = await openTestDatabase();
    try {
      const mine = collect(db.driver);
      await publishOne(db.driver, 1);
      await publishOne(db.driver, 2); // quiet from here
      const client = await db.pool.connect();
      try {
        await client.query('BEGIN');
        await db.driver.events!.publish([event(3)], client);
        await client.query('COMMIT');
      } finally {
        client.release();
      }
      await waitFor(() => mine.length === 3, 5_000, 'the committed event');
      expect(mine.map((e) => e.data['n'])).toEqual([1, 2, 3]);
    } finally {
      await db.drop();
    }
  });

  it('counts a listener that keeps publishing itself (publishEventsWhenAlone), and keeps publishing to it', async () => {
    const db = await openTestDatabase();
    try {
      collect(db.driver);
      const peer = db.peer({ publishEventsWhenAlone: true });
      const theirs = collect(peer);
      await peer.events!.listen();
      expect(await listeners(db)).toBe(2);
      const publishes = spyPublishes(db.driver);
      for (let n = 1; n <= 3; n++) await publishOne(db.driver, n);
      await waitFor(() => theirs.length === 3, 5_000, 'the peer to hear three events');
      expect(theirs.map((e) => e.data['n'])).toEqual([1, 2, 3]);
      expect(publishes()).toBe(3);
    } finally {
      await db.drop();
    }
  });

  it('keeps publishing with publishEventsWhenAlone', async () => {
    const db = await openTestDatabase({ publishEventsWhenAlone: true });
    try {
      collect(db.driver);
      const publishes = spyPublishes(db.driver);
      for (let n = 1; n <= 3; n++) await publishOne(db.driver, n);
      expect(publishes()).toBe(3);
      expect(db.driver.events!.quiet).toBe(false);
    } finally {
      await db.drop();
    }
  });
});
