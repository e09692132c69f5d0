import { describe, expect, it } from 'vitest';
import { JOB_STATES } from '@ojskit/core';
import { TRANSITIONS } from '@ojskit/core/lifecycle';
import { canFire, ReferenceModel } from '../src/model/reference-model.js';

const T0 = 1_000_000;

describe('ReferenceModel', () => {
  it('derives legality from the transition table', () => {
    for (const state of JOB_STATES) {
      expect(canFire(state, 'ack')).toBe(TRANSITIONS.some((r) => r.from === state && r.trigger === 'ack'));
      expect(canFire(state, 'cancel')).toBe(TRANSITIONS.some((r) => r.from === state && r.trigger === 'cancel'));
    }
  });

  it('follows a job through claim, failure, backoff and completion', () => {
    const model = new ReferenceModel();
    model.push({ id: 'a', mode: 'now', delayMs: 0, maxAttempts: 3, deadLetter: false }, T0);
    expect(model.ack('a')).toBe('conflict');
    expect(model.claimable(T0).groups).toEqual([['a']]);
    model.claimed('a', 'w', 5_000, T0);
    expect(model.nack('a', 'retryable', T0)).toBe('ok');
    expect(model.get('a')).toMatchObject({ state: 'retryable', attempt: 1, dueAt: T0 + 1_000 });
    model.maintenance(T0 + 999);
    expect(model.get('a').state).toBe('retryable');
    model.maintenance(T0 + 1_000);
    expect(model.get('a').state).toBe('available');
    model.claimed('a', 'w2', 5_000, T0 + 1_000);
    expect(model.ack('a')).toBe('ok');
    expect(model.get('a')).toMatchObject({ state: 'completed', attempt: 2 });
    expect(model.cancel('a')).toBe('conflict');
  });

  it('keeps both outcomes when both deadlines passed, and resolves to the reported one', () => {
    const model = new ReferenceModel();
    model.push({ id: 'a', mode: 'now', delayMs: 0, maxAttempts: 3, deadLetter: false, timeoutMs: 2_000 }, T0);
    model.claimed('a', 'w', 1_000, T0);
    model.maintenance(T0 + 5_000);
    expect(
      model
        .options('a')
        .map((c) => c.state)
        .sort(),
    ).toEqual(['available', 'retryable']);
    expect(model.resolve('a', 'retryable', 1)).toBe(true);
    expect(model.get('a').state).toBe('retryable');
    expect(model.resolve('a', 'completed', 1)).toBe(false);
  });

  it('reclaims a dead worker’s job and only dead-letters jobs under that policy', () => {
    const model = new ReferenceModel();
    model.push({ id: 'a', mode: 'now', delayMs: 0, maxAttempts: 1, deadLetter: true }, T0);
    model.claimed('a', 'w', 120_000, T0);
    expect(model.heartbeat('a', 'w', T0 + 1_000)).toBe(true);
    model.maintenance(T0 + 31_001);
    expect(model.get('a')).toMatchObject({ state: 'discarded', inDeadLetter: true });
    expect(model.deadLetterRetry('a')).toBe('ok');
    expect(model.get('a')).toMatchObject({ state: 'available', attempt: 0 });
    expect(model.deadLetterRetry('a')).toBe('not_found');
  });
});
