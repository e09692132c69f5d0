/**
 * Job events carry when the job entered the state it left (spec/events.md V3a). The engine's stamping of them
 * (claim, ACK, reclaim) is checked end to end by the gateway's metrics-time-in-state test on every store.
 */
import { describe, expect, it } from 'vitest';
import { jobEventToOjs } from '../src/events/event.js';

describe('job event since', () => {
  it('is rendered under enqueued_at when leaving available and started_at when leaving active, and nowhere else', () => {
    const base = { jobId: 'j', jobType: 't', queue: 'q', attempt: 1, time: '2026-01-01T00:00:01.000Z', extra: undefined } as const;
    const started = jobEventToOjs({ ...base, type: 'job.started', state: 'active', from: 'available', since: '2026-01-01T00:00:00.000Z' }, 'evt_1');
    expect(started.data['enqueued_at']).toBe('2026-01-01T00:00:00.000Z');
    expect(Object.keys(started.data).at(-1)).toBe('enqueued_at');
    const done = jobEventToOjs({ ...base, type: 'job.completed', state: 'completed', from: 'active', since: '2026-01-01T00:00:00.500Z' }, 'evt_2');
    expect(done.data['started_at']).toBe('2026-01-01T00:00:00.500Z');
    const created = jobEventToOjs({ ...base, type: 'job.enqueued', state: 'available', from: null, since: '2026-01-01T00:00:00.000Z' }, 'evt_3');
    expect(created.data).not.toHaveProperty('enqueued_at');
    expect(created.data).not.toHaveProperty('started_at');
  });
});
