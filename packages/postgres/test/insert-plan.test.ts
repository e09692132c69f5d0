/** The driver's half of insert planning (core decides): write steps, and jobs handed out as before. No database. */
import { describe, expect, it } from 'vitest';
import type { JobInternals, StoredJob } from '@ojskit/core/driver';
import { planInsert, type StoredConflicts } from '../src/insert-plan.js';
import { iso, storedJob, T0 } from './support/jobs.js';

const keyed = (key: string, onConflict: NonNullable<JobInternals['uniqueOnConflict']>): Partial<JobInternals> => ({
  uniqueKey: key,
  uniqueStates: ['available', 'scheduled', 'active', 'retryable', 'pending'],
  uniqueOnConflict: onConflict,
});

function conflicts(...stored: StoredJob[]): StoredConflicts {
  const byKey = new Map<string, StoredJob[]>();
  for (const s of stored) byKey.set(s.x.uniqueKey!, [...(byKey.get(s.x.uniqueKey!) ?? []), s]);
  return { byId: new Map(), byKey };
}

describe('planInsert (postgres)', () => {
  it('a job replaced by a later one of the batch is written in its cancelled form, and reported by the replacer', () => {
    const first = storedJob('q', {}, keyed('k', 'reject'));
    const second = storedJob('q', {}, keyed('k', 'replace'));
    const plan = planInsert([first, second], T0, iso(T0), conflicts(), 'abort');
    if (!plan.ok) throw new Error('expected a plan');
    const [one, two] = plan.steps;
    if (one?.kind !== 'insert' || two?.kind !== 'insert') throw new Error('expected two inserts');
    expect(one.job.state).toBe('available');
    expect(one.row.job).toMatchObject({ id: first.job.id, state: 'cancelled', cancelled_at: iso(T0) });
    expect(one.row.x.finishedAt).toBe(T0);
    expect(two.replacedStaged).toBe(one.row);
    expect(two.replace).toBeUndefined();
    expect(first.job.state).toBe('available'); // input untouched
  });

  it('a job that took a replaced job’s schedule comes without `enqueued_at`, also as the `existing` of an abort', () => {
    const dueAt = T0 + 60_000;
    const held = storedJob('q', { state: 'scheduled', scheduled_at: iso(dueAt) }, { ...keyed('k', 'reject'), dueAt });
    const taker = storedJob('q', {}, keyed('k', 'replace_except_schedule'));
    const ok = planInsert([taker], T0, iso(T0), conflicts(held), 'abort');
    expect(ok.ok && ok.steps[0]).toMatchObject({ kind: 'insert', replace: held, job: { state: 'scheduled', scheduled_at: iso(dueAt) } });
    if (!ok.ok || ok.steps[0]?.kind !== 'insert') throw new Error('expected an insert');
    expect(Object.keys(ok.steps[0].job)).not.toContain('enqueued_at');

    const again = storedJob('q', {}, keyed('k', 'replace_except_schedule'));
    const blocked = storedJob('q', {}, keyed('k', 'reject'));
    const aborted = planInsert([again, blocked], T0, iso(T0), conflicts(held), 'abort');
    expect(aborted).toMatchObject({ ok: false, index: 1, reason: 'unique', existing: { id: again.job.id, state: 'scheduled' } });
    if (aborted.ok) throw new Error('expected an abort');
    expect(Object.keys(aborted.existing)).not.toContain('enqueued_at');
  });
});
