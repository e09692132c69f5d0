import { describe, expect, it } from 'vitest';
import type { Job, JobState } from '../src/index.js';
import { planInsert, type InsertConflictMode, type InsertDecision, type InsertPlanPort, type JobInternals, type StoredJob } from '../src/entries/driver.js';

const T0 = Date.UTC(2026, 0, 1);
const iso = (ms: number): string => new Date(ms).toISOString();

let counter = 0;
/** A job with only the fields the planner reads (it never looks at type, queue, args and the like). */
function stored(job: Partial<Job> = {}, x: Partial<JobInternals> = {}): StoredJob {
  counter++;
  return {
    job: { id: `job-${counter}`, state: 'available', enqueued_at: iso(T0), ...job } as Job,
    x: { visibilityMs: 30_000, timeoutMs: 60_000, ...x },
  };
}

const LIVE: JobState[] = ['available', 'scheduled', 'active', 'retryable', 'pending'];
const keyed = (key: string, onConflict: NonNullable<JobInternals['uniqueOnConflict']>, extra: Partial<JobInternals> = {}): Partial<JobInternals> => ({
  uniqueKey: key,
  uniqueStates: LIVE,
  uniqueOnConflict: onConflict,
  ...extra,
});

/** A store as a port sees it: stored jobs by id and by key; staged jobs join the id lookup. */
function portOver(existing: StoredJob[] = []): InsertPlanPort<StoredJob, StoredJob> & { staged: StoredJob[] } {
  const byId = new Map(existing.map((s) => [s.job.id, s]));
  const byKey = new Map<string, StoredJob[]>();
  for (const s of existing) if (s.x.uniqueKey !== undefined) byKey.set(s.x.uniqueKey, [...(byKey.get(s.x.uniqueKey) ?? []), s]);
  const staged: StoredJob[] = [];
  return {
    staged,
    jobWithId: (id) => byId.get(id)?.job,
    storedHolders: (key) => byKey.get(key),
    copy: (source) => ({ job: { ...source.job }, x: { ...source.x } }),
    stage: (s) => {
      staged.push(s);
      byId.set(s.job.id, s);
    },
  };
}

/** The step, which must be an insert. */
function inserted<H, S extends H>(step: InsertDecision<H, S> | undefined): Extract<InsertDecision<H, S>, { kind: 'insert' }> {
  if (step?.kind !== 'insert') throw new Error(`expected an insert step, got ${step?.kind}`);
  return step;
}

const plan = (input: StoredJob[], port = portOver(), mode: InsertConflictMode = 'abort', now = T0) => planInsert(input, now, port, mode);

describe('planInsert', () => {
  it('stages every job of a clean batch, as copies, in order', () => {
    const a = stored();
    const b = stored();
    const port = portOver();
    const result = plan([a, b], port);
    expect(result.ok).toBe(true);
    expect(result.steps.map((s) => s.kind === 'insert' && [s.staged.job.id, s.replace, s.rescheduled])).toEqual([
      [a.job.id, undefined, false],
      [b.job.id, undefined, false],
    ]);
    expect(port.staged.map((s) => s.job.id)).toEqual([a.job.id, b.job.id]);
    expect(port.staged[0]).not.toBe(a);
    expect(port.staged[0]).toEqual(a);
  });

  it('aborts on a duplicate id against the store, listing the steps staged before it', () => {
    const held = stored();
    const fresh = stored();
    const result = plan([fresh, stored({ id: held.job.id })], portOver([held]));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.result).toEqual({ ok: false, index: 1, reason: 'duplicate_id', existing: held.job });
    expect(result.steps.map((s) => s.kind === 'insert' && s.staged.job.id)).toEqual([fresh.job.id]);
  });

  it('aborts on an id repeated inside the batch, reporting the earlier job', () => {
    const a = stored();
    const result = plan([a, stored({ id: a.job.id })]);
    expect(result.ok || result.result).toMatchObject({ ok: false, index: 1, reason: 'duplicate_id', existing: { id: a.job.id } });
  });

  it('reject aborts on a blocking holder, stored or earlier in the batch', () => {
    const held = stored({}, keyed('k', 'reject'));
    const againstStore = plan([stored({}, keyed('k', 'reject'))], portOver([held]));
    expect(againstStore.ok || againstStore.result).toEqual({ ok: false, index: 0, reason: 'unique', existing: held.job });

    const first = stored({}, keyed('j', 'reject'));
    const inBatch = plan([first, stored({}, keyed('j', 'reject'))]);
    expect(inBatch.ok || inBatch.result).toMatchObject({ ok: false, index: 1, reason: 'unique', existing: { id: first.job.id } });
  });

  it('a holder outside the job’s unique states or past its unique period does not block', () => {
    const done = stored({ state: 'completed' }, keyed('k', 'reject'));
    const expired = stored({}, keyed('k', 'reject', { uniqueUntil: T0 }));
    const result = plan([stored({}, keyed('k', 'reject'))], portOver([done, expired]));
    expect(result.ok).toBe(true);
  });

  it('ignore reports the holder and stages nothing', () => {
    const held = stored({}, keyed('k', 'reject'));
    const port = portOver([held]);
    const result = plan([stored({}, keyed('k', 'ignore'))], port);
    expect(result).toEqual({ ok: true, steps: [{ kind: 'existing', match: held }] });
    expect(port.staged).toEqual([]);
  });

  it('replace cancels a replaceable holder; a terminal one is left alone and the job is stored', () => {
    const held = stored({}, keyed('k', 'reject'));
    const result = plan([stored({}, keyed('k', 'replace'))], portOver([held]));
    expect(result.ok && result.steps[0]).toMatchObject({ kind: 'insert', replace: held, rescheduled: false });

    const done = stored({ state: 'completed' }, keyed('d', 'reject'));
    const terminal = plan([stored({}, keyed('d', 'replace', { uniqueStates: ['completed'] }))], portOver([done]));
    expect(terminal.ok && terminal.steps[0]).toMatchObject({ kind: 'insert', replace: undefined });
  });

  it('replace of a job staged earlier in the batch; the replaced job then counts as cancelled', () => {
    const first = stored({}, keyed('k', 'reject'));
    const second = stored({}, keyed('k', 'replace'));
    // Blocks only in `cancelled`: it sees the first job as the second one leaves it.
    const third = stored({}, keyed('k', 'reject', { uniqueStates: ['cancelled'] }));
    const result = plan([first, second, third]);
    expect(result.ok || result.result).toMatchObject({ ok: false, index: 2, reason: 'unique', existing: { id: first.job.id } });
    const [one, two] = result.steps.map(inserted);
    expect(two!.staged.job.id).toBe(second.job.id);
    expect(two!.replace).toBe(one!.staged);
  });

  it('replace_except_schedule: the new job takes the schedule of the job it replaces', () => {
    const dueAt = T0 + 60_000;
    const held = stored({ state: 'scheduled', scheduled_at: iso(dueAt) }, keyed('k', 'reject', { dueAt }));
    const result = plan([stored({}, keyed('k', 'replace_except_schedule'))], portOver([held]));
    expect(result.ok).toBe(true);
    const step = inserted(result.steps[0]);
    expect(step).toMatchObject({ replace: held, rescheduled: true });
    expect(step.staged.job).toMatchObject({ state: 'scheduled', scheduled_at: iso(dueAt) });
    // Cleared by assignment (adapters' objects keep their shape).
    expect('enqueued_at' in step.staged.job && step.staged.job.enqueued_at).toBeUndefined();
    expect(step.staged.x.dueAt).toBe(dueAt);
  });

  it('skip mode skips duplicate ids and reject conflicts instead of aborting', () => {
    const held = stored({}, keyed('k', 'reject'));
    const fresh = stored();
    const port = portOver([held]);
    const result = plan([stored({ id: held.job.id }), stored({}, keyed('k', 'reject')), fresh], port, 'skip');
    expect(result.ok && result.steps.map((s) => s.kind)).toEqual(['skip', 'skip', 'insert']);
    expect(port.staged.map((s) => s.job.id)).toEqual([fresh.job.id]);
  });
});
