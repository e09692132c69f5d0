/** Coalescing at high rates: counts stay exact, tokens are a bounded uniform sample, memory stays bounded. */
import type { OjsEvent } from '@ojskit/core';
import { describe, expect, it } from 'vitest';
import { mergeHistory } from '../../src/ui/job-history.js';
import { FrameCoalescer } from '../../src/live/coalescer.js';
import { JobStories } from '../../src/live/job-stories.js';
import { LiveModel, MAX_TOKENS_PER_FRAME } from '../../src/live/live-model.js';
import { toTransition, type TransitionEvent } from '../../src/live/transition-event.js';

let seq = 0;
function event(jobId: string, from: string | null, to: string, queue = 'q', type = 'job.started'): OjsEvent {
  seq += 1;
  return {
    specversion: '1.0',
    id: `evt_${String(seq).padStart(8, '0')}`,
    type: type as OjsEvent['type'],
    source: 'test',
    time: new Date(1_700_000_000_000 + seq).toISOString(),
    subject: jobId,
    datacontenttype: 'application/json',
    data: { job_id: jobId, job_type: 't', queue, state: to, from, attempt: 1 },
  };
}

/** A seeded PRNG so the sampling test is deterministic. */
function mulberry32(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

describe('toTransition', () => {
  it('reads moves, and ignores events that move nothing', () => {
    expect(toTransition(event('a', null, 'available'))).toMatchObject({ jobId: 'a', from: null, to: 'available' });
    expect(toTransition(event('a', 'active', 'active', 'q', 'job.heartbeat'))).toBeUndefined();
    const noFrom = event('a', null, 'active');
    delete (noFrom.data as Record<string, unknown>)['from'];
    expect(toTransition(noFrom)).toBeUndefined();
    expect(toTransition({ ...event('a', null, 'available'), data: { queue: 'q' } })).toBeUndefined();
  });
});

describe('FrameCoalescer', () => {
  it('hands out every transition while under the budget', () => {
    const c = new FrameCoalescer(5);
    for (let i = 0; i < 3; i++) c.push(toTransition(event(`j${i}`, null, 'available'))!);
    const frame = c.takeFrame();
    expect(frame.arrived).toBe(3);
    expect(frame.tokens.map((t) => t.jobId)).toEqual(['j0', 'j1', 'j2']);
    expect(c.takeFrame()).toEqual({ tokens: [], arrived: 0 });
  });

  it('samples uniformly above the budget: each edge gets tokens in proportion to its traffic', () => {
    const c = new FrameCoalescer(10, mulberry32(42));
    const shares = { 'available->active': 0, 'active->completed': 0 };
    for (let frame = 0; frame < 400; frame++) {
      // 900 fetches and 100 acks per frame, interleaved.
      for (let i = 0; i < 1_000; i++) c.push(toTransition(i % 10 === 0 ? event('x', 'active', 'completed') : event('x', 'available', 'active'))!);
      const { tokens, arrived } = c.takeFrame();
      expect(arrived).toBe(1_000);
      expect(tokens).toHaveLength(10);
      for (const t of tokens) shares[`${t.from}->${t.to}` as keyof typeof shares] += 1;
    }
    const ackShare = shares['active->completed'] / 4_000;
    expect(ackShare).toBeGreaterThan(0.08);
    expect(ackShare).toBeLessThan(0.12);
  });

  it('rejects a budget that is not a positive integer', () => {
    expect(() => new FrameCoalescer(0)).toThrow();
  });
});

describe('LiveModel', () => {
  it('keeps counts exact at any rate while tokens per frame stay bounded', () => {
    const model = new LiveModel(() => 0);
    const jobs = 20_000;
    for (let i = 0; i < jobs; i++) model.ingest(event(`j${i}`, null, 'available', i % 2 ? 'a' : 'b', 'job.enqueued'));
    for (let i = 0; i < jobs; i++) model.ingest(event(`j${i}`, 'available', 'active', i % 2 ? 'a' : 'b'));
    for (let i = 0; i < jobs - 7; i++) model.ingest(event(`j${i}`, 'active', 'completed', i % 2 ? 'a' : 'b', 'job.completed'));
    const total = model.counts.total();
    expect(total.completed).toBe(jobs - 7);
    expect(total.active).toBe(7);
    expect(total.available).toBe(0);
    expect(model.counts.queue('a').completed + model.counts.queue('b').completed).toBe(jobs - 7);
    const frame = model.takeFrame();
    expect(frame.arrived).toBe(3 * jobs - 7);
    expect(frame.tokens.length).toBe(MAX_TOKENS_PER_FRAME);
    expect(model.timeline.size).toBeLessThanOrEqual(model.timeline.capacity);
    expect(model.stories.size).toBeLessThanOrEqual(5_000);
  });

  it('pause holds the view; resume applies what arrived, without tokens; replay re-emits recorded moves', () => {
    let now = 0;
    const model = new LiveModel(() => now);
    model.ingest(event('a', null, 'available', 'q', 'job.enqueued'));
    model.takeFrame();
    model.pause();
    model.ingest(event('a', 'available', 'active'));
    expect(model.counts.queue('q').active).toBe(0);
    expect(model.heldCount).toBe(1);
    model.resume();
    expect(model.counts.queue('q')).toMatchObject({ available: 0, active: 1 });
    expect(model.takeFrame().tokens).toHaveLength(0);
    expect(model.replay()).toBe(2);
    now += 10_000;
    expect(model.takeFrame().tokens.map((t) => t.to)).toEqual(['available', 'active']);
    expect(model.counts.queue('q')).toMatchObject({ available: 0, active: 1 });
  });

  it('counts a move once when the engine reports it with several events (job.failed + job.retrying, …)', () => {
    const model = new LiveModel(() => 0);
    model.ingest(event('f', null, 'available', 'q', 'job.enqueued'));
    model.ingest(event('f', 'available', 'active'));
    const failed = event('f', 'active', 'retryable', 'q', 'job.failed');
    model.ingest(failed);
    model.ingest({ ...event('f', 'active', 'retryable', 'q', 'job.retrying'), time: failed.time });
    expect(model.counts.queue('q')).toMatchObject({ available: 0, active: 0, retryable: 1 });
    expect(model.stories.get('f').map((t) => t.type)).toEqual(['job.enqueued', 'job.started', 'job.failed']);
    expect(model.timeline.size).toBe(4);
  });

  it('a stats snapshot replaces only queues that were quiet before and during its read', () => {
    let now = 10_000;
    const model = new LiveModel(() => now);
    model.ingest(event('s', null, 'available', 'busy', 'job.enqueued'));
    now += 1_000;
    expect(model.seed('busy', { available: 5 }, now - 500)).toBe(false);
    expect(model.counts.queue('busy').available).toBe(1);
    expect(model.seed('quiet', { completed: 7 }, now)).toBe(true);
    expect(model.counts.queue('quiet').completed).toBe(7);
    now += 5_000;
    expect(model.seed('busy', { available: 5 }, now)).toBe(true);
    expect(model.counts.queue('busy').available).toBe(5);
  });

  it('drops an event delivered twice (stream replay and catch-up poll) by its id', () => {
    const model = new LiveModel(() => 0);
    const enqueued = event('d', null, 'available', 'q', 'job.enqueued');
    expect(model.ingest(enqueued)).toBe(true);
    expect(model.ingest({ ...enqueued })).toBe(false);
    expect(model.counts.queue('q').available).toBe(1);
    expect(model.lastEventId).toBe(enqueued.id);
  });

  it('ends exact when a job’s moves arrive out of order', () => {
    const model = new LiveModel(() => 0);
    model.ingest(event('z', 'available', 'active', 'q'));
    model.ingest(event('z', null, 'available', 'q', 'job.enqueued'));
    model.ingest(event('z', 'active', 'completed', 'q', 'job.completed'));
    expect(model.counts.queue('q')).toMatchObject({ available: 0, active: 0, completed: 1 });
  });
});

describe('JobStories', () => {
  it('keeps each job’s moves in order and forgets the least recently touched job first', () => {
    const stories = new JobStories(2, 3);
    const t = (id: string, from: string | null, to: string): TransitionEvent => toTransition(event(id, from, to))!;
    stories.record(t('a', null, 'available'));
    stories.record(t('b', null, 'available'));
    stories.record(t('a', 'available', 'active'));
    stories.record(t('c', null, 'available'));
    expect(stories.get('b')).toEqual([]);
    expect(stories.get('a').map((e) => e.to)).toEqual(['available', 'active']);
    for (let i = 0; i < 5; i++) stories.record(t('a', 'active', 'retryable'));
    expect(stories.get('a')).toHaveLength(3);
  });
});

describe('mergeHistory', () => {
  it('merges the polled log with streamed moves, oldest first, one row per move', () => {
    const enq = event('m', null, 'available', 'q', 'job.enqueued');
    const start = event('m', 'available', 'active');
    const failed = event('m', 'active', 'discarded', 'q', 'job.failed');
    const discarded = { ...event('m', 'active', 'discarded', 'q', 'job.discarded'), time: failed.time };
    const rows = mergeHistory([enq, failed, discarded], [toTransition(start)!, toTransition(failed)!]);
    expect(rows.map((r) => `${r.from}>${r.to}`)).toEqual(['null>available', 'available>active', 'active>discarded']);
  });
});
