import { afterEach, describe, expect, it, vi } from 'vitest';
import type { EventType, OjsEvent } from '../src/index.js';
import { EventHub } from '../src/events/hub.js';
import { makeEvent } from '../src/entries/testing.js';
import { JobEventOrder } from '../src/events/job-order.js';

const TIME = '2026-11-25T12:00:00.000Z';

/** A job event as another process would publish it. */
function ev(type: EventType, jobId: string, from: string | null, state: string): OjsEvent {
  return makeEvent(type, jobId, { job_id: jobId, job_type: 't', queue: 'q', state, from, attempt: 1 }, TIME);
}
const enqueued = (id: string) => ev('job.enqueued', id, null, 'available');
const started = (id: string) => ev('job.started', id, 'available', 'active');
const completed = (id: string) => ev('job.completed', id, 'active', 'completed');

function order(windowMs = 50) {
  const out: string[] = [];
  const o = new JobEventOrder((e) => out.push(`${e.subject}:${e.type}`), windowMs);
  return { o, out };
}

afterEach(() => vi.useRealTimers());

describe('JobEventOrder', () => {
  it('passes a job whose events arrive in order at once', () => {
    const { o, out } = order();
    o.push([enqueued('a'), started('a'), completed('a')]);
    expect(out).toEqual(['a:job.enqueued', 'a:job.started', 'a:job.completed']);
    expect(o.waiting).toBe(0);
  });

  it('holds an event that overtook its predecessor until that arrives, then passes both in lifecycle order', () => {
    const { o, out } = order();
    o.push([enqueued('other')]);
    o.push([started('a')]); // this process claimed it; the enqueue came from another process, later
    o.push([completed('a')]);
    expect(out).toEqual(['other:job.enqueued']);
    expect(o.waiting).toBe(2);
    o.push([enqueued('a')]);
    expect(out).toEqual(['other:job.enqueued', 'a:job.enqueued', 'a:job.started', 'a:job.completed']);
    expect(o.waiting).toBe(0);
  });

  it('holds a known job event that skipped a state until the missing one arrives (ACK through another gateway)', () => {
    const { o, out } = order();
    o.push([enqueued('a'), completed('a')]);
    expect(out).toEqual(['a:job.enqueued']);
    o.push([started('a')]);
    expect(out).toEqual(['a:job.enqueued', 'a:job.started', 'a:job.completed']);
  });

  it('passes every event of one transition and events within a state', () => {
    const { o, out } = order();
    o.push([
      enqueued('a'),
      started('a'),
      ev('job.heartbeat', 'a', 'active', 'active'),
      ev('job.progress', 'a', 'active', 'active'),
      ev('job.failed', 'a', 'active', 'discarded'),
      ev('job.discarded', 'a', 'active', 'discarded'),
      ev('dead_letter.added', 'a', 'active', 'discarded'),
      ev('dead_letter.retried', 'a', 'discarded', 'available'),
      ev('job.enqueued', 'a', 'discarded', 'available'),
    ]);
    expect(out).toHaveLength(9);
    expect(o.waiting).toBe(0);
  });

  it("passes an unknown job's job.enqueued at once (workers wake on it) and events that are not a job's transitions", () => {
    const { o, out } = order();
    o.push([ev('job.enqueued', 'a', 'scheduled', 'available'), makeEvent('queue.paused', 'q', { queue: 'q' }, TIME)]);
    expect(out).toEqual(['a:job.enqueued', 'q:queue.paused']);
  });

  it("an unknown job's promotion passes at once and lets the claim it preceded follow", () => {
    const { o, out } = order();
    o.push([started('a')]);
    o.push([ev('job.enqueued', 'a', 'scheduled', 'available')]);
    expect(out).toEqual(['a:job.enqueued', 'a:job.started']);
    expect(o.waiting).toBe(0);
  });

  it('gives up waiting after the window and passes what it held in arrival order, dropping nothing', () => {
    vi.useFakeTimers();
    const { o, out } = order(50);
    o.push([started('a'), completed('a')]); // the enqueue was published before this process listened
    vi.advanceTimersByTime(20);
    o.push([started('b')]);
    vi.advanceTimersByTime(29);
    expect(out).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(out).toEqual(['a:job.started', 'a:job.completed']);
    vi.advanceTimersByTime(20);
    expect(out).toEqual(['a:job.started', 'a:job.completed', 'b:job.started']);
    // The predecessor arriving late still goes on (at least once), after what it was waited for.
    o.push([enqueued('a')]);
    expect(out.at(-1)).toBe('a:job.enqueued');
    expect(o.waiting).toBe(0);
  });

  it('a wait that ended and began again runs its own full window', () => {
    vi.useFakeTimers();
    const { o, out } = order(50);
    o.push([started('a')]);
    vi.advanceTimersByTime(10);
    o.push([enqueued('a')]); // wait over
    o.push([ev('job.completed', 'a', 'active', 'completed'), ev('job.cancelled', 'a', 'retryable', 'cancelled')]); // the second skipped a state
    expect(out).toEqual(['a:job.enqueued', 'a:job.started', 'a:job.completed']);
    vi.advanceTimersByTime(40); // the first wait's deadline: not this one's
    expect(out).toHaveLength(3);
    vi.advanceTimersByTime(10);
    expect(out.at(-1)).toBe('a:job.cancelled');
  });

  it('close passes everything still waiting', () => {
    const { o, out } = order();
    o.push([started('a')]);
    o.close();
    expect(out).toEqual(['a:job.started']);
  });

  it('rejects a window outside 0..60000 ms', () => {
    expect(() => new JobEventOrder(() => {}, -1)).toThrow(TypeError);
    expect(() => new JobEventOrder(() => {}, 1.5)).toThrow(TypeError);
  });
});

describe('EventHub over a transport', () => {
  it("subscribers and polls see one job's events in lifecycle order when its first event came from another process later", () => {
    const listeners: Array<(events: readonly OjsEvent[]) => void> = [];
    const transport = {
      publish: (events: readonly OjsEvent[]) => listeners.forEach((l) => l(events)),
      subscribe: (l: (events: readonly OjsEvent[]) => void) => (listeners.push(l), () => {}),
    };
    const hub = new EventHub(10, transport);
    const seen: string[] = [];
    hub.subscribe({}, (e) => seen.push(e.type));
    transport.publish([started('a')]); // this process's claim
    transport.publish([enqueued('a')]); // the other process's enqueue, published a moment later
    expect(seen).toEqual(['job.enqueued', 'job.started']);
    expect(hub.poll({ limit: 10 }).events.map((e) => e.type)).toEqual(['job.enqueued', 'job.started']);
    hub.close();
  });
});
