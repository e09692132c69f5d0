/** Events: one per transition in lifecycle order, envelope shape, polling (cursor, limit, filters), subscribe. */
import { expect } from 'vitest';
import { EVENT_TYPES, type OjsEvent } from '@ojskit/core';
import { isUuidV7 } from '@ojskit/core/formats';
import type { CaseContext } from '../context.js';
import type { Suite } from '../harness.js';
import { INTO } from '../support/drive.js';
import { eventually, expectServerTimestamp } from '../support/formats.js';

async function eventsOf(t: CaseContext, jobId: string): Promise<OjsEvent[]> {
  return (await t.api.pollEvents({ jobId, limit: 1_000 })).events;
}

function typesOf(events: OjsEvent[]): string[] {
  return events.map((e) => e.type);
}

/** Polls events of `queue` and returns the first of `type`, failing when there is none. */
async function firstOfType(t: CaseContext, queue: string, type: string): Promise<OjsEvent> {
  const { events } = await t.api.pollEvents({ queues: [queue], types: [type], limit: 1_000 });
  expect(events.length, `expected a ${type} event for queue ${queue}`).toBeGreaterThanOrEqual(1);
  return events[0]!;
}

export function registerEventCases(suite: Suite): void {
  suite.group('events', () => {
    suite.test('events.lifecycle-order', 'a job life yields its events in lifecycle order, each with the state it reached', async (t) => {
      const queue = t.queue();
      const job = await t.push(queue, { options: { retry: { initial_interval: 'PT1S', jitter: false } } });
      await t.claim(queue, { worker_id: 'w-ev' });
      await t.api.nack({ job_id: job.id, error: { code: 'e', message: 'first' } });
      await t.advance(1_000);
      await t.claim(queue, { worker_id: 'w-ev' });
      t.clock.advance(40);
      await t.api.ack({ job_id: job.id, result: 'ok' });
      const events = await eventsOf(t, job.id);
      // Promotion MAY emit a second job.enqueued; everything else is required exactly once, in this order.
      const required = events.filter((e, i) => !(e.type === 'job.enqueued' && i > 0));
      const lifecycle = ['job.enqueued', 'job.started', 'job.failed', 'job.retrying', 'job.started', 'job.completed'];
      expect(typesOf(required)).toEqual(t.dispatch.eventTypes(lifecycle, queue));
      // A dispatch log's deliveries: `job.pending` from `available`, each before its claim's `job.started` (from `pending`).
      for (const pending of required.filter((e) => e.type === 'job.pending')) expect(pending.data).toMatchObject({ state: 'pending', from: 'available' });
      const [enqueued, started, failed, retrying, restarted, completed] = required.filter((e) => e.type !== 'job.pending');
      expect(enqueued!.data).toMatchObject({ job_id: job.id, job_type: 'contract.job', queue, state: 'available', priority: 0 });
      expect(started!.data).toMatchObject({ state: 'active', worker_id: 'w-ev', attempt: 1 });
      expect(failed!.data).toMatchObject({ attempt: 1, error: { code: 'e', message: 'first' } });
      expect(retrying!.data).toMatchObject({ state: 'retryable', attempt: 1, max_attempts: 3 });
      expect(retrying!.data.next_retry_at).toBeDefined();
      expect(restarted!.data).toMatchObject({ state: 'active', attempt: 2 });
      expect(completed!.data).toMatchObject({ state: 'completed', attempt: 2, duration_ms: 40, result: 'ok' });
      const ids = events.map((e) => e.id);
      expect(new Set(ids).size).toBe(ids.length);
    });

    suite.test('events.envelope', 'events are CloudEvents-shaped with evt_ ids and the job as subject', async (t) => {
      const job = await t.push(t.queue());
      const [event] = await eventsOf(t, job.id);
      expect(event).toMatchObject({ specversion: '1.0', type: 'job.enqueued', subject: job.id, datacontenttype: 'application/json', time: t.iso() });
      expect(event!.id).toMatch(/^evt_/);
      expect(isUuidV7(event!.id.slice(4))).toBe(true);
      expect(event!.source).toMatch(/^ojs:\/\//);
      expectServerTimestamp(event!.time, 'time');
      expect(EVENT_TYPES).toContain(event!.type);
    });

    const perTransition: Array<[string, string, (t: CaseContext, queue: string) => Promise<string>, Record<string, unknown>]> = [
      ['scheduled', 'job.scheduled', async (t, q) => (await INTO.scheduled(t, q)).id, { state: 'scheduled' }],
      ['cancelled', 'job.cancelled', async (t, q) => (await INTO.cancelled(t, q)).id, { state: 'cancelled' }],
      ['discarded', 'job.discarded', async (t, q) => (await INTO.discarded(t, q)).id, { state: 'discarded', total_attempts: 1 }],
      ['dead-letter-added', 'dead_letter.added', async (t, q) => (await INTO.discarded(t, q)).id, {}],
      [
        'expired',
        'job.expired',
        async (t, q) => {
          const job = await t.push(q, { options: { expires_at: '+PT1S' } });
          await t.advance(2_000);
          return job.id;
        },
        { state: 'discarded' },
      ],
      [
        'heartbeat',
        'job.heartbeat',
        async (t, q) => {
          const job = await t.push(q);
          await t.claim(q, { worker_id: 'w-hb' });
          await t.api.heartbeat({ worker_id: 'w-hb', active_job_ids: [job.id] });
          return job.id;
        },
        { worker_id: 'w-hb', attempt: 1 },
      ],
      [
        'progress',
        'job.progress',
        async (t, q) => {
          const job = await INTO.active(t, q);
          await t.api.setProgress(job.id, { progress: 0.25, message: 'quarter' });
          return job.id;
        },
        { progress: 0.25, message: 'quarter' },
      ],
      [
        'dead-letter-retried',
        'dead_letter.retried',
        async (t, q) => {
          const job = await INTO.discarded(t, q);
          await t.api.retryDeadLetter(job.id);
          return job.id;
        },
        {},
      ],
    ];
    for (const [name, type, drive, data] of perTransition) {
      suite.test(`events.${name}`, `${type} is emitted once with its data`, async (t) => {
        const queue = t.queue();
        const id = await drive(t, queue);
        const matching = (await eventsOf(t, id)).filter((e) => e.type === type);
        expect(matching, `${type} events`).toHaveLength(1);
        expect(matching[0]!.data).toMatchObject({ job_id: id, queue, ...data });
      });
    }

    suite.test('events.expired-data', 'job.expired carries created_at and expired_at', async (t) => {
      const queue = t.queue();
      const job = await t.push(queue, { options: { expires_at: '+PT1S' } });
      await t.advance(2_000);
      const event = await firstOfType(t, queue, 'job.expired');
      expect(event.data).toMatchObject({ job_id: job.id, created_at: job.created_at });
      expect(event.data.expired_at).toBeDefined();
    });

    suite.test('events.queue', 'pause and resume emit queue.paused and queue.resumed', async (t) => {
      const queue = t.queue();
      await t.api.pauseQueue(queue);
      await t.api.resumeQueue(queue);
      const { events } = await t.api.pollEvents({ types: ['queue.*'], queues: [queue] });
      expect(typesOf(events)).toEqual(['queue.paused', 'queue.resumed']);
      expect(events[0]!.data).toMatchObject({ queue });
    });

    suite.test('events.workflow', 'a workflow emits workflow.started and workflow.completed', async (t) => {
      const queue = t.queue();
      const wf = await t.api.createWorkflow({ type: 'group', options: { queue }, jobs: [{ type: 'wf.e', args: [] }] });
      const [job] = (await t.api.fetch({ queues: [queue] })).jobs;
      await t.api.ack({ job_id: job!.id });
      const { events } = await t.api.pollEvents({ types: ['workflow.*'], limit: 1_000 });
      const mine = events.filter((e) => e.data.workflow_id === wf.id).map((e) => e.type);
      expect(mine[0]).toBe('workflow.started');
      expect(mine.at(-1)).toBe('workflow.completed');
    });

    suite.test('events.poll-cursor', 'polling pages oldest first with after/limit/has_more/cursor', async (t) => {
      const queue = t.queue();
      const pushed: string[] = [];
      for (let i = 0; i < 5; i++) pushed.push((await t.push(queue, { args: [i] })).id);
      // Only the enqueues: with a dispatch log, the log's deliveries add `job.pending` events at a time of its own.
      const all = await t.api.pollEvents({ queues: [queue], types: ['job.enqueued'] });
      expect(all.events.map((e) => (e.data as { job_id: string }).job_id)).toEqual(pushed);
      const first = await t.api.pollEvents({ queues: [queue], types: ['job.enqueued'], limit: 2 });
      expect(first.events).toHaveLength(2);
      expect(first.has_more).toBe(true);
      expect(first.cursor).toBe(first.events[1]!.id);
      const rest = await t.api.pollEvents({ queues: [queue], types: ['job.enqueued'], after: first.cursor!, limit: 10 });
      expect(rest.events.map((e) => e.id)).toEqual(all.events.slice(2).map((e) => e.id));
      expect(rest.has_more).toBe(false);
    });

    suite.test('events.filters', 'types (with prefix *), queues and job types filter, AND-ed', async (t) => {
      // Held: the case counts each job's events right after the push, before a dispatch log's job.pending.
      const [a, b] = [t.heldQueue(), t.heldQueue()];
      await t.push(a, { type: 'kind.one' });
      await t.push(a, { type: 'kind.two' });
      await t.push(b, { type: 'kind.one' });
      await t.api.pauseQueue(a);
      const jobOnly = await t.api.pollEvents({ queues: [a], types: ['job.*'] });
      expect(typesOf(jobOnly.events)).toEqual(['job.enqueued', 'job.enqueued']);
      const kindOne = await t.api.pollEvents({ queues: [a, b], jobTypes: ['kind.one'] });
      expect(kindOne.events.map((e) => e.data.queue).sort()).toEqual([a, b].sort());
      const both = await t.api.pollEvents({ queues: [a], jobTypes: ['kind.two'], types: ['job.enqueued'] });
      expect(both.events).toHaveLength(1);
      expect(both.events[0]!.data.job_type).toBe('kind.two');
    });

    suite.test('events.subscribe', 'subscribe delivers matching events live; unsubscribe stops delivery', async (t) => {
      const [mine, other] = [t.queue(), t.queue()];
      const received: OjsEvent[] = [];
      const unsubscribe = t.api.subscribe({ queues: [mine] }, (event) => received.push(event));
      try {
        await new Promise((resolve) => setTimeout(resolve, 50));
        const job = await t.push(mine);
        await t.push(other);
        await eventually(() => received.some((e) => e.subject === job.id && e.type === 'job.enqueued'), 'the job.enqueued event');
        expect(received.every((e) => e.data.queue === mine)).toBe(true);
      } finally {
        unsubscribe();
      }
      const count = received.length;
      await t.push(mine);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(received).toHaveLength(count);
    });
  });
}
