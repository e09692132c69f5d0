/**
 * The claim of dispatched jobs, and the expirer's share of them.
 *
 * The claim is the store's: `jobClaim` with `dispatched: true` (core's `ClaimParams.dispatched`), one Lua script
 * on Redis and one SQL statement on PostgreSQL per call, taking per queue in order (paused queues skipped) the
 * `pending` jobs the log delivered (`x.dispatchedAt`) by priority then dispatch order (core's age-boost rank first
 * in an aging queue), with `DISPATCH_EFFECTS.claim`, and discarding expired ones by `DISPATCH_EFFECTS.expire`. It
 * used to be read-then-write from here (a listing, a read and a guarded write per job): seconds per claim under
 * load, past the jobs' reservations.
 *
 * The expirer's share stays read-then-write (it runs once per expirer interval, not per claim): each guarded
 * write checks the state and the attempt, and the marker is set only by the dispatch move and removed only by
 * leaving `pending`, so a job read as dispatched is still dispatched whenever its write finds it `pending` with the
 * same attempt.
 */
import { DISPATCH_EFFECTS, effectChanges, noteOf, type ClaimParams, type Driver, type StoredJob } from '@ojskit/core/driver';
import type { Job } from '@ojskit/core';

/** How many `pending` jobs of a queue the expirer looks at per run (as the store lists them). */
const CANDIDATES = 1_000;

export interface DispatchedClaim {
  jobs: Job[];
  expired: Job[];
  /** The store's hint when its rate limits held a job back (core's `ClaimResult.held`). */
  held?: { retryInMs?: number };
}

/** Discards a dispatched job past its `expires_at` (guarded on its state and attempt); the job, or null when it moved on. */
async function expireOne(store: Driver, s: StoredJob, now: number, nowIso: string): Promise<Job | null> {
  const expire = DISPATCH_EFFECTS.expire;
  const changes = effectChanges(expire, now, nowIso);
  const r = await store.jobTransition({
    id: s.job.id,
    from: expire.from,
    to: expire.to,
    expect: { attempt: s.job.attempt },
    set: changes.set,
    unset: changes.unset,
    x: changes.x,
    note: noteOf(expire, nowIso),
  });
  return r.ok && 'job' in r ? r.job : null;
}

/**
 * The dispatched `pending` jobs of a queue past their `expires_at` (of the CANDIDATES the store lists first),
 * read with their internals: only jobs whose listed envelope has expired are read again (a backlog of jobs
 * without an expiry costs the listing alone).
 */
async function expiredDispatchedOf(store: Driver, queue: string, now: number): Promise<StoredJob[]> {
  const { jobs } = await store.jobList({ queue, state: DISPATCH_EFFECTS.claim.from[0]!, limit: CANDIDATES, offset: 0 });
  const due = jobs.filter((j) => j.expires_at !== undefined && Date.parse(j.expires_at) < now);
  const stored = await Promise.all(due.map((j) => store.jobGet(j.id)));
  return stored.filter((s): s is StoredJob => s !== null && s.x.dispatchedAt !== undefined);
}

/**
 * The expirer's share of dispatched jobs, which the store's `jobExpire` does not see (it scans the states of
 * `STATE_SETS.expirable`): discards those past `expires_at`, up to `limit`.
 */
export async function expireDispatched(store: Driver, params: { now: number; nowIso: string; limit: number }): Promise<Job[]> {
  const out: Job[] = [];
  for (const queue of await store.queueList()) {
    for (const s of await expiredDispatchedOf(store, queue.name, params.now)) {
      if (out.length >= params.limit) return out;
      if (s.x.expiresAt === undefined || s.x.expiresAt >= params.now) continue;
      const job = await expireOne(store, s, params.now, params.nowIso);
      if (job) out.push(job);
    }
  }
  return out;
}

/** A claim of dispatched jobs: the store's `jobClaim` with `dispatched: true` (one script or statement). */
export async function claimDispatched(store: Driver, params: ClaimParams): Promise<DispatchedClaim> {
  const { jobs, expired, held } = await store.jobClaim({ ...params, dispatched: true });
  return held ? { jobs, expired, held } : { jobs, expired };
}
