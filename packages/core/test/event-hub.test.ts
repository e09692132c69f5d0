import { describe, expect, it } from 'vitest';
import type { EventType, OjsEvent } from '../src/index.js';
import type { JobEventRecord } from '../src/events/event.js';
import { EventHub, matchesFilter } from '../src/events/hub.js';
import { eventIdFor, eventSeqOf } from '../src/formats/ids.js';
import { makeEvent } from '../src/entries/testing.js';

const TIME = '2026-01-15T10:30:00.000Z';
let seq = 0;
const jobEvent = (type: EventType, over: { queue?: string; job_type?: string; job_id?: string } = {}): OjsEvent => {
  const jobId = over.job_id ?? `job-${++seq}`;
  return makeEvent(type, jobId, { job_id: jobId, job_type: over.job_type ?? 'email.send', queue: over.queue ?? 'default', state: 'available' }, TIME);
};
const filled = (capacity: number, n: number) => {
  const hub = new EventHub(capacity);
  const events = Array.from({ length: n }, () => jobEvent('job.enqueued'));
  hub.emit(events);
  return { hub, events };
};
const ids = (events: OjsEvent[]) => events.map((e) => e.id);

describe('makeEvent', () => {
  it('builds a CloudEvents-shaped event with an evt_ id', () => {
    const e = jobEvent('job.completed', { job_id: 'j1' });
    expect(e).toMatchObject({ specversion: '1.0', type: 'job.completed', subject: 'j1', time: TIME, datacontenttype: 'application/json' });
    expect(e.id).toMatch(/^evt_[0-9a-f-]{36}$/);
    expect(e.source).toMatch(/^ojs:\/\//);
  });
});

describe('EventHub ring buffer', () => {
  it('returns everything, oldest first, while under capacity', () => {
    const { hub, events } = filled(10, 4);
    expect(hub.poll({ limit: 100 })).toEqual({ events, hasMore: false });
  });

  it('evicts the oldest events beyond capacity', () => {
    const { hub, events } = filled(5, 12);
    const { events: kept } = hub.poll({ limit: 100 });
    expect(ids(kept)).toEqual(ids(events.slice(-5)));
  });

  it('keeps working across many wraps', () => {
    const hub = new EventHub(3);
    const all: OjsEvent[] = [];
    for (let i = 0; i < 50; i++) {
      const e = jobEvent('job.started');
      all.push(e);
      hub.emit([e]);
      expect(ids(hub.poll({ limit: 10 }).events)).toEqual(ids(all.slice(-3)));
    }
  });
});

describe('EventHub.poll', () => {
  it('returns the events after the given id (exclusive)', () => {
    const { hub, events } = filled(10, 6);
    expect(ids(hub.poll({ after: events[2]!.id, limit: 100 }).events)).toEqual(ids(events.slice(3)));
    expect(hub.poll({ after: events[5]!.id, limit: 100 })).toEqual({ events: [], hasMore: false });
  });

  it('starts from the oldest kept event when the cursor was evicted or is unknown', () => {
    const { hub, events } = filled(3, 6);
    expect(ids(hub.poll({ after: events[0]!.id, limit: 100 }).events)).toEqual(ids(events.slice(3)));
    expect(ids(hub.poll({ after: 'evt_unknown', limit: 100 }).events)).toEqual(ids(events.slice(3)));
  });

  it('honours limit and reports has_more; paging with the last id walks everything once', () => {
    const { hub, events } = filled(20, 7);
    const first = hub.poll({ limit: 3 });
    expect(ids(first.events)).toEqual(ids(events.slice(0, 3)));
    expect(first.hasMore).toBe(true);
    const seen = [...first.events];
    let cursor = first.events.at(-1)!.id;
    for (;;) {
      const page = hub.poll({ after: cursor, limit: 3 });
      seen.push(...page.events);
      if (!page.hasMore) break;
      cursor = page.events.at(-1)!.id;
    }
    expect(ids(seen)).toEqual(ids(events));
  });

  it('has_more is false when the page ends exactly at the last event', () => {
    const { hub } = filled(10, 3);
    expect(hub.poll({ limit: 3 }).hasMore).toBe(false);
  });

  it('has_more counts only matching events', () => {
    const hub = new EventHub(10);
    hub.emit([jobEvent('job.enqueued'), jobEvent('queue.paused'), jobEvent('queue.paused')]);
    expect(hub.poll({ types: ['job.enqueued'], limit: 1 }).hasMore).toBe(false);
  });
});

describe('filters', () => {
  const hub = new EventHub(100);
  const events = [
    jobEvent('job.enqueued', { queue: 'mail', job_type: 'email.send', job_id: 'j1' }),
    jobEvent('job.started', { queue: 'mail', job_type: 'email.send', job_id: 'j1' }),
    jobEvent('job.completed', { queue: 'reports', job_type: 'report.build', job_id: 'j2' }),
    makeEvent('queue.paused', 'mail', { queue: 'mail' }, TIME),
    makeEvent('cron.triggered', 'nightly', { cron_name: 'nightly', job_id: 'j3', job_type: 'report.build', queue: 'reports' }, TIME),
    jobEvent('job.failed', { queue: 'reports', job_type: 'report.build', job_id: 'j2' }),
  ];
  hub.emit(events);
  const types = (filter: Parameters<EventHub['poll']>[0]) => hub.poll(filter).events.map((e) => e.type);

  it('matches exact types and type prefixes ending in *', () => {
    expect(types({ types: ['job.*'], limit: 100 })).toEqual(['job.enqueued', 'job.started', 'job.completed', 'job.failed']);
    expect(types({ types: ['job.completed', 'queue.paused'], limit: 100 })).toEqual(['job.completed', 'queue.paused']);
    expect(types({ types: ['job'], limit: 100 })).toEqual([]);
    expect(types({ types: ['*'], limit: 100 })).toHaveLength(events.length);
  });

  it('filters by queue, job type and job id, AND-ed', () => {
    expect(types({ queues: ['mail'], limit: 100 })).toEqual(['job.enqueued', 'job.started', 'queue.paused']);
    expect(types({ jobTypes: ['report.build'], limit: 100 })).toEqual(['job.completed', 'cron.triggered', 'job.failed']);
    expect(types({ jobId: 'j2', limit: 100 })).toEqual(['job.completed', 'job.failed']);
    expect(types({ types: ['job.*'], queues: ['reports'], jobTypes: ['report.build'], limit: 100 })).toEqual(['job.completed', 'job.failed']);
    expect(types({ queues: ['mail'], jobTypes: ['report.build'], limit: 100 })).toEqual([]);
  });

  it('empty filter lists mean no filtering', () => {
    expect(types({ types: [], queues: [], jobTypes: [], limit: 100 })).toHaveLength(events.length);
    expect(matchesFilter(events[0]!, {})).toBe(true);
  });
});

describe('subscribers', () => {
  it('receive matching events synchronously', () => {
    const hub = new EventHub(10);
    const got: string[] = [];
    hub.subscribe({ types: ['job.completed'] }, (e) => got.push(e.type));
    hub.emit([jobEvent('job.enqueued'), jobEvent('job.completed')]);
    expect(got).toEqual(['job.completed']);
  });

  it('a throwing subscriber does not break the others or the buffer', () => {
    const errors: unknown[] = [];
    const hub = new EventHub(10, undefined, (err) => errors.push(err));
    const got: string[] = [];
    hub.subscribe({}, () => {
      throw new Error('listener down');
    });
    hub.subscribe({}, (e) => got.push(e.id));
    const events = [jobEvent('job.enqueued'), jobEvent('job.started')];
    expect(() => hub.emit(events)).not.toThrow();
    expect(got).toEqual(ids(events));
    expect(errors).toHaveLength(2);
    expect(ids(hub.poll({ limit: 10 }).events)).toEqual(ids(events));
  });

  it('unsubscribe stops delivery; close drops every subscriber', () => {
    const hub = new EventHub(10);
    const got: string[] = [];
    const off = hub.subscribe({}, (e) => got.push(e.type));
    hub.emit([jobEvent('job.enqueued')]);
    off();
    hub.emit([jobEvent('job.started')]);
    hub.subscribe({}, (e) => got.push(e.type));
    hub.close();
    hub.emit([jobEvent('job.completed')]);
    expect(got).toEqual(['job.enqueued']);
  });
});

describe('with a transport', () => {
  /** A transport that hands every publish straight back, as a cross-process one does for this process. */
  const loopback = () => {
    const listeners: Array<(events: readonly OjsEvent[]) => void> = [];
    return {
      publish: (events: readonly OjsEvent[]) => listeners.forEach((l) => l(events)),
      subscribe: (l: (events: readonly OjsEvent[]) => void) => (listeners.push(l), () => {}),
    };
  };
  // `from: null`: each job's first event here, so the hub's ordering (job-order.test.ts) passes it at once.
  const record = (type: EventType, jobId: string, extra?: Record<string, unknown>): JobEventRecord => ({
    kind: 'job',
    type,
    jobId,
    jobType: 'email.send',
    queue: 'default',
    state: 'active',
    from: null,
    attempt: 1,
    time: TIME,
    extra,
  });

  it('job events read back as they were delivered, ids included; polls resume after their ids', () => {
    const hub = new EventHub(10, loopback());
    const delivered: OjsEvent[] = [];
    hub.subscribe({}, (e) => delivered.push(e));
    hub.emit([record('job.started', 'j1', { worker_id: 'w' }), record('job.started', 'j2', { worker_id: 'w' }), record('job.completed', 'j1')]);
    // Another shape, kept as it is: a job event from another source.
    const foreign = { ...jobEvent('job.enqueued'), source: 'ojs://elsewhere' };
    hub.emit([foreign]);
    expect(delivered).toHaveLength(4);
    expect(hub.poll({ limit: 10 }).events).toEqual(delivered);
    expect(hub.poll({ after: delivered[1]!.id, limit: 10 }).events).toEqual(delivered.slice(2));
    expect(hub.poll({ after: delivered[3]!.id, limit: 10 }).events).toEqual([]);
    expect(hub.poll({ jobId: 'j1', limit: 10 }).events).toEqual([delivered[0], delivered[2]]);
  });

  it('events with different extras keep their own', () => {
    const hub = new EventHub(10, loopback());
    hub.emit([
      record('job.started', 'j1', { worker_id: 'a' }),
      record('job.started', 'j2', { worker_id: 'b' }),
      record('job.started', 'j3', { worker_id: 'b', n: 1 }),
    ]);
    expect(hub.poll({ limit: 10 }).events.map((e) => e.data)).toEqual([
      expect.objectContaining({ job_id: 'j1', worker_id: 'a' }),
      expect.objectContaining({ job_id: 'j2', worker_id: 'b' }),
      expect.objectContaining({ job_id: 'j3', worker_id: 'b', n: 1 }),
    ]);
  });

  it("keeps events itself, unbuilt and unpublished, while the transport is quiet; a transaction's still go out", () => {
    const transport = { ...loopback(), quiet: true, published: [] as Array<readonly OjsEvent[]> };
    const publish = transport.publish;
    transport.publish = (events: readonly OjsEvent[], tx?: unknown) => {
      transport.published.push(events);
      if (tx === undefined) publish(events);
    };
    const hub = new EventHub(10, transport);
    const delivered: OjsEvent[] = [];
    const watched: string[] = [];
    hub.subscribe({}, (e) => delivered.push(e));
    hub.watchEmits({}, () => watched.push('emit'));
    hub.emit([record('job.started', 'j1', { worker_id: 'w' }), record('job.completed', 'j1')]);
    // nothing handed to the transport; subscribers got the events at once, as without a transport
    expect(transport.published).toEqual([]);
    expect(delivered.map((e) => [e.type, e.data.job_id, e.data.worker_id])).toEqual([
      ['job.started', 'j1', 'w'],
      ['job.completed', 'j1', undefined],
    ]);
    expect(watched).toEqual([]);
    expect(hub.poll({ limit: 10 }).events).toEqual(delivered);
    expect(hub.poll({ after: delivered[0]!.id, limit: 10 }).events).toEqual(delivered.slice(1));
    // inside a caller's transaction the transport publishes them (only a commit may show them)
    hub.emit([record('job.started', 'j2')], { tx: 1 });
    expect(transport.published).toHaveLength(1);
    expect(delivered).toHaveLength(2);
    // someone else listens again: built, published and heard back through the transport
    transport.quiet = false;
    hub.emit([record('job.started', 'j3')]);
    expect(transport.published).toHaveLength(2);
    expect(transport.published[1]![0]).toMatchObject({ type: 'job.started', data: { job_id: 'j3' } });
    expect(delivered.map((e) => e.data.job_id)).toEqual(['j1', 'j1', 'j3']);
    expect(watched).toEqual(['emit']);
  });
});

describe('EventHub cursor outside the window (issue 25 item 11)', () => {
  it('says so explicitly instead of silently restarting from the oldest event', () => {
    const { hub, events } = filled(5, 12);
    const evicted = hub.poll({ after: events[2]!.id, limit: 100 });
    expect(evicted.cursorLost).toBe(true);
    expect(ids(evicted.events)).toEqual(ids(events.slice(-5)));
    const unknown = hub.poll({ after: 'evt_0190c8a4-6a2b-7c3d-8e4f-5a6b7c8d9e0f', limit: 100 });
    expect(unknown.cursorLost).toBe(true);
    const kept = hub.poll({ after: events[9]!.id, limit: 100 });
    expect(kept.cursorLost).toBeUndefined();
    expect(ids(kept.events)).toEqual(ids(events.slice(10)));
    expect(hub.poll({ limit: 100 }).cursorLost).toBeUndefined();
  });
});

describe('EventHub cursor ids', () => {
  const record = (jobId: string, time: string): JobEventRecord => ({
    kind: 'job',
    type: 'job.enqueued',
    jobId,
    jobType: 'email.send',
    queue: 'default',
    state: 'available',
    from: null,
    attempt: 0,
    time,
    extra: undefined,
  });

  it('resumes only after the very event of the cursor, not one that shares the low 32 bits of its sequence', () => {
    const hub = new EventHub(10);
    hub.emit(Array.from({ length: 5 }, (_, i) => record(`j${i}`, TIME)));
    const kept = hub.poll({ limit: 10 }).events;
    expect(ids(hub.poll({ after: kept[2]!.id, limit: 10 }).events)).toEqual(ids(kept.slice(3)));
    // The id this process gave (or will give) another event with those bits: an hour earlier, evicted long ago.
    const older = eventIdFor(Date.parse(TIME) - 3_600_000, eventSeqOf(kept[2]!.id)!);
    expect(older).not.toBe(kept[2]!.id);
    const lost = hub.poll({ after: older, limit: 10 });
    expect(lost.cursorLost).toBe(true);
    expect(ids(lost.events)).toEqual(ids(kept));
  });
});
