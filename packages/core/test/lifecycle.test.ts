import { describe, expect, it } from 'vitest';
import { JOB_STATES, NON_TERMINAL_STATES, TERMINAL_STATES, isJobState, isTerminal, type JobState } from '../src/index.js';
import { TRANSITIONS, allowedFrom, assertTransition, canTransition, type Trigger } from '../src/entries/lifecycle.js';
import { OjsError } from '../src/index.js';

// The transition table of lifecycle.md, written out here independently of src so a drift in either shows up.
// [rule, from, trigger, to]
const PROTOCOL_ROWS: Array<[number, JobState | null, Trigger, JobState]> = [
  [1, null, 'push', 'available'],
  [2, null, 'push', 'scheduled'],
  [3, null, 'push', 'pending'],
  [4, 'scheduled', 'timer', 'available'],
  [5, 'pending', 'activate', 'available'],
  [6, 'available', 'fetch', 'active'],
  [7, 'available', 'expiry', 'discarded'],
  [8, 'active', 'ack', 'completed'],
  [9, 'active', 'fail', 'retryable'],
  [10, 'active', 'fail', 'discarded'],
  [11, 'active', 'requeue', 'available'],
  [12, 'active', 'visibility_timeout', 'available'],
  [13, 'active', 'visibility_timeout', 'discarded'],
  [14, 'active', 'execution_timeout', 'retryable'],
  [14, 'active', 'execution_timeout', 'discarded'],
  [15, 'active', 'cancel', 'cancelled'],
  [16, 'retryable', 'timer', 'available'],
  [17, 'scheduled', 'cancel', 'cancelled'],
  [17, 'available', 'cancel', 'cancelled'],
  [17, 'pending', 'cancel', 'cancelled'],
  [17, 'retryable', 'cancel', 'cancelled'],
  [18, 'scheduled', 'expiry', 'discarded'],
  [18, 'retryable', 'expiry', 'discarded'],
  [19, 'discarded', 'dead_letter_retry', 'available'],
  [20, 'scheduled', 'unique_replace', 'cancelled'],
  [20, 'available', 'unique_replace', 'cancelled'],
  [20, 'pending', 'unique_replace', 'cancelled'],
  [20, 'retryable', 'unique_replace', 'cancelled'],
  [20, 'active', 'unique_replace', 'cancelled'],
];

const pairKey = (from: JobState | null, to: JobState) => `${from ?? '∅'}→${to}`;
const PROTOCOL_PAIRS = new Set(PROTOCOL_ROWS.map(([, from, , to]) => pairKey(from, to)));

describe('states', () => {
  it('has exactly the eight protocol states', () => {
    expect([...JOB_STATES].sort()).toEqual(['active', 'available', 'cancelled', 'completed', 'discarded', 'pending', 'retryable', 'scheduled']);
    expect(new Set(JOB_STATES).size).toBe(8);
  });

  it('marks completed, cancelled and discarded terminal, and only those', () => {
    expect([...TERMINAL_STATES].sort()).toEqual(['cancelled', 'completed', 'discarded']);
    expect([...NON_TERMINAL_STATES].sort()).toEqual(['active', 'available', 'pending', 'retryable', 'scheduled']);
    for (const s of JOB_STATES) expect(isTerminal(s)).toBe(TERMINAL_STATES.includes(s));
  });

  it('recognises state names exactly (case-sensitive, no aliases)', () => {
    for (const s of JOB_STATES) expect(isJobState(s)).toBe(true);
    for (const v of ['Active', 'running', 'failed', 'dead', '', null, 3, undefined]) expect(isJobState(v)).toBe(false);
  });
});

describe('transition table', () => {
  it.each(PROTOCOL_ROWS)('row #%i %s --%s--> %s is allowed', (_rule, from, trigger, to) => {
    expect(canTransition(from, to)).toBe(true);
    expect(canTransition(from, to, trigger)).toBe(true);
    expect(() => assertTransition(from, to, trigger)).not.toThrow();
  });

  it('every row in src carries the protocol row number of a protocol transition', () => {
    for (const t of TRANSITIONS) {
      const match = PROTOCOL_ROWS.find(([rule, from, , to]) => rule === t.rule && from === t.from && to === t.to);
      expect(match, `src row #${t.rule} ${pairKey(t.from, t.to)}`).toBeDefined();
    }
  });

  it('refuses every from→to pair the protocol does not list', () => {
    const froms: Array<JobState | null> = [null, ...JOB_STATES];
    let refused = 0;
    for (const from of froms) {
      for (const to of JOB_STATES) {
        if (PROTOCOL_PAIRS.has(pairKey(from, to))) continue;
        expect(canTransition(from, to), pairKey(from, to)).toBe(false);
        refused++;
      }
    }
    expect(refused).toBeGreaterThan(40);
  });

  it.each<[JobState, JobState]>([
    ['completed', 'active'],
    ['completed', 'available'],
    ['cancelled', 'available'],
    ['cancelled', 'active'],
    ['pending', 'active'],
    ['scheduled', 'active'],
    ['retryable', 'active'],
    ['discarded', 'active'],
    ['available', 'completed'],
    ['active', 'scheduled'],
  ])('refuses %s → %s', (from, to) => {
    expect(canTransition(from, to)).toBe(false);
  });

  it('terminal states only leave by a dead-letter retry of a discarded job', () => {
    for (const from of TERMINAL_STATES) {
      for (const to of JOB_STATES) {
        const allowed = from === 'discarded' && to === 'available';
        expect(canTransition(from, to), pairKey(from, to)).toBe(allowed);
      }
    }
    expect(canTransition('discarded', 'available', 'dead_letter_retry')).toBe(true);
    expect(canTransition('discarded', 'available', 'timer')).toBe(false);
  });

  it('checks the trigger when one is named', () => {
    expect(canTransition('active', 'completed', 'fail')).toBe(false);
    expect(canTransition('scheduled', 'available', 'activate')).toBe(false);
    expect(canTransition('pending', 'available', 'timer')).toBe(false);
    expect(canTransition('available', 'discarded', 'fail')).toBe(false);
  });
});

describe('assertTransition', () => {
  it('throws a 409 conflict OjsError naming the current state', () => {
    let caught: unknown;
    try {
      assertTransition('completed', 'active', 'fetch', '0196b2f0-0000-7000-8000-000000000001');
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(OjsError);
    const err = caught as OjsError;
    expect(err.code).toBe('conflict');
    expect(err.status).toBe(409);
    expect(err.retryable).toBe(false);
    expect(err.message).toContain('completed');
    expect(err.details).toMatchObject({ job_id: '0196b2f0-0000-7000-8000-000000000001', current_state: 'completed' });
  });

  it.each<[JobState, JobState]>([
    ['cancelled', 'available'],
    ['pending', 'active'],
    ['completed', 'active'],
  ])('throws for %s → %s', (from, to) => {
    expect(() => assertTransition(from, to)).toThrow(OjsError);
  });
});

describe('allowedFrom', () => {
  const sorted = (xs: readonly JobState[]) => [...xs].sort();

  it.each<[JobState, Trigger, JobState[]]>([
    ['cancelled', 'cancel', ['active', 'available', 'pending', 'retryable', 'scheduled']],
    ['discarded', 'expiry', ['available', 'retryable', 'scheduled']],
    ['available', 'timer', ['retryable', 'scheduled']],
    ['available', 'activate', ['pending']],
    ['active', 'fetch', ['available']],
    ['completed', 'ack', ['active']],
    ['retryable', 'fail', ['active']],
    ['discarded', 'fail', ['active']],
    ['available', 'requeue', ['active']],
    ['available', 'visibility_timeout', ['active']],
    ['available', 'dead_letter_retry', ['discarded']],
    ['cancelled', 'unique_replace', ['active', 'available', 'pending', 'retryable', 'scheduled']],
  ])('to %s by %s: from %j', (to, trigger, expected) => {
    expect(sorted(allowedFrom(to, trigger))).toEqual(sorted(expected));
  });

  it('never lists a terminal state as a source except discarded for a dead-letter retry', () => {
    for (const t of TRANSITIONS) {
      if (t.from && TERMINAL_STATES.includes(t.from)) expect([t.from, t.trigger]).toEqual(['discarded', 'dead_letter_retry']);
    }
  });

  it('is empty for a trigger that cannot reach the state', () => {
    expect(allowedFrom('completed', 'cancel')).toEqual([]);
    expect(allowedFrom('active', 'timer')).toEqual([]);
  });
});
