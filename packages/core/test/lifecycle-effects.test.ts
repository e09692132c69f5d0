import { describe, expect, it } from 'vitest';
import { JOB_STATES, type Job } from '../src/index.js';
import type { JobInternals } from '../src/entries/driver.js';
import { EFFECTS, STATE_INDEX, STATE_ROLES, STATE_SETS, TRANSITIONS, canTransition, effectChanges } from '../src/entries/lifecycle.js';

describe('state sets', () => {
  // Written out so that a change to the table that moves a set shows up here, and in every adapter's render.
  it('are the sets the protocol lifecycle gives', () => {
    expect(STATE_SETS).toEqual({
      due: ['scheduled', 'retryable'],
      claimable: ['available'],
      backlog: ['scheduled', 'available', 'pending', 'retryable'],
      expirable: ['scheduled', 'available', 'retryable'],
      held: ['active'],
      terminal: ['completed', 'cancelled', 'discarded'],
      cancellable: ['scheduled', 'available', 'pending', 'active', 'retryable'],
      uniqueReplaceable: ['scheduled', 'available', 'pending', 'active', 'retryable'],
      uniqueBlocking: ['scheduled', 'available', 'pending', 'active', 'retryable'],
      timedOnInsert: ['scheduled', 'available'],
    });
    expect(STATE_ROLES).toEqual({
      claimable: 'available',
      claimed: 'active',
      promoted: 'available',
      expired: 'discarded',
      completed: 'completed',
      cancelled: 'cancelled',
      deadLetter: 'discarded',
      scheduled: 'scheduled',
      pending: 'pending',
    });
  });

  it('are frozen', () => {
    expect(Object.isFrozen(STATE_SETS)).toBe(true);
    for (const set of Object.values(STATE_SETS)) expect(Object.isFrozen(set)).toBe(true);
    expect(Object.isFrozen(STATE_ROLES)).toBe(true);
  });

  it('give every state exactly one index', () => {
    expect(Object.keys(STATE_INDEX).sort()).toEqual([...JOB_STATES].sort());
    expect(STATE_INDEX).toEqual({
      scheduled: 'due',
      available: 'ready',
      pending: 'none',
      active: 'deadline',
      completed: 'finished',
      retryable: 'due',
      cancelled: 'finished',
      discarded: 'finished',
    });
  });
});

describe('transition effects', () => {
  const JOB_FIELDS = [
    'started_at',
    'next_attempt_at',
    'worker_id',
    'enqueued_at',
    'discarded_at',
    'expired_at',
    'completed_at',
    'error',
    'result',
    'errors',
    'retry_delay_ms',
    'cancelled_at',
    'activated_at',
    'attempt',
  ] as const satisfies ReadonlyArray<keyof Job>;
  const INTERNAL_FIELDS = ['progress', 'claimVisibilityMs', 'visibleUntil', 'timeoutAt', 'finishedAt', 'dueAt', 'deadLetter'] as const satisfies ReadonlyArray<
    keyof JobInternals
  >;

  it('each belong to rows of the transition table', () => {
    for (const [name, effect] of Object.entries(EFFECTS)) {
      expect(effect.from.length, name).toBeGreaterThan(0);
      for (const from of effect.from) expect(canTransition(from, effect.to, effect.trigger), `${name}: ${from} -> ${effect.to}`).toBe(true);
      const rows = TRANSITIONS.filter((t) => t.trigger === effect.trigger && t.to === effect.to && t.from !== null).map((t) => t.from);
      expect([...effect.from].sort(), name).toEqual([...new Set(rows)].sort());
    }
  });

  it('name only fields a job or its internals have, each once', () => {
    for (const [name, e] of Object.entries(EFFECTS)) {
      const envelope = [...e.stamp, ...e.unset, ...e.assign];
      const internal = [...e.xStamp, ...e.xUnset, ...e.xAssign];
      for (const f of envelope) expect(JOB_FIELDS as readonly string[], `${name}.${f}`).toContain(f);
      for (const f of internal) expect(INTERNAL_FIELDS as readonly string[], `${name}.x.${f}`).toContain(f);
      expect(new Set(envelope).size, name).toBe(envelope.length);
      expect(new Set(internal).size, name).toBe(internal.length);
    }
  });

  it('say what a claim, a promotion and an expiry write', () => {
    expect(EFFECTS.claim).toMatchObject({
      from: ['available'],
      to: 'active',
      stamp: ['started_at'],
      unset: ['next_attempt_at'],
      assign: ['worker_id'],
      xAssign: ['claimVisibilityMs', 'visibleUntil', 'timeoutAt'],
      xUnset: ['progress'],
      attempt: 'increment',
    });
    expect(EFFECTS.promote).toMatchObject({ from: ['scheduled', 'retryable'], to: 'available', stamp: ['enqueued_at'], xStamp: [] });
    expect(EFFECTS.expire).toMatchObject({
      from: ['available', 'scheduled', 'retryable'],
      to: 'discarded',
      stamp: ['discarded_at', 'expired_at'],
      xStamp: ['finishedAt'],
    });
    expect(EFFECTS.uniqueReplace).toMatchObject({ to: 'cancelled', stamp: ['cancelled_at'], unset: [], xStamp: ['finishedAt'], xUnset: [] });
    expect(EFFECTS.ack.attempt).toBeUndefined();
  });

  it('render at an instant as the parts of a compare-and-set', () => {
    const iso = '2026-01-02T03:04:05.006Z';
    expect(effectChanges(EFFECTS.cancel, 7, iso)).toEqual({
      set: { cancelled_at: iso },
      unset: ['worker_id', 'next_attempt_at'],
      x: { finishedAt: 7, visibleUntil: null, timeoutAt: null, claimVisibilityMs: null, dueAt: null },
    });
    const changes = effectChanges(EFFECTS.ack, 7, iso);
    changes.unset.push('mutated');
    expect(EFFECTS.ack.unset).not.toContain('mutated');
  });
});
