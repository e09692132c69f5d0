/**
 * A claim of dispatched jobs: per queue in order (paused queues skipped), the `pending` jobs the log delivered
 * (`x.dispatchedAt`), by priority then by the time they entered the ready state (in a queue with an age boost, by
 * core's rank first), each taken by its own guarded
 * compare-and-set in the store (`DISPATCH_EFFECTS.claim`, guarded on the state and the attempt), so two
 * claimers never both win a job. A dispatched job past its `expires_at` is discarded instead.
 *
 * Why read-then-write is safe here: the marker is set only by the dispatch move and removed only by leaving
 * `pending`, and a job staged by `pending: true` never gains it without leaving `pending` first; a job read as
 * dispatched is therefore still dispatched whenever the guarded write finds it `pending` with the same attempt.
 */
import { ageBoostIntervalOf, ageBoostRank, DISPATCH_EFFECTS, effectChanges, noteOf, type ClaimParams, type Driver, type StoredJob } from '@ojskit/core/driver';
import type { Job } from '@ojskit/core';

/** How many `pending` jobs of a queue a claim looks at (newest by id first, as the store lists them). */
const CANDIDATES = 1_000;

export interface DispatchedClaim {
  jobs: Job[];
  expired: Job[];
}

function byPriorityThenAge(a: Job, b: Job): number {
  const pa = a.priority ?? 0;
  const pb = b.priority ?? 0;
  if (pa !== pb) return pb - pa;
  const ta = a.enqueued_at ?? a.created_at;
  const tb = b.enqueued_at ?? b.created_at;
  return ta < tb ? -1 : ta > tb ? 1 : a.id < b.id ? -1 : 1;
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

/** Core's age-boost rank of a job in a queue aging by `intervalMs` (priority/age-boost.ts). */
function agedRank(job: Job, intervalMs: number): number {
  return ageBoostRank(Date.parse(job.enqueued_at ?? job.created_at), job.priority ?? 0, intervalMs);
}

/**
 * The dispatched `pending` jobs of a queue, by priority then the time they became ready (by core's age-boost
 * rank first when the queue has `ageMs`), read with their internals: of the CANDIDATES newest, the first `take`
 * (all when absent).
 */
async function dispatchedOf(store: Driver, queue: string, take?: number, ageMs?: number): Promise<StoredJob[]> {
  const { jobs } = await store.jobList({ queue, state: DISPATCH_EFFECTS.claim.from[0]!, limit: CANDIDATES, offset: 0 });
  if (jobs.length === 0) return [];
  const byRank = (a: Job, b: Job) => (ageMs === undefined ? 0 : agedRank(a, ageMs) - agedRank(b, ageMs));
  // Equal ranks go by FIFO, not priority (core's rule, spec/admin.md G1): the older job first.
  const aging = ageMs !== undefined;
  const byAge = (a: Job, b: Job) => (aging ? Date.parse(a.enqueued_at ?? a.created_at) - Date.parse(b.enqueued_at ?? b.created_at) : 0);
  jobs.sort((a, b) => byRank(a, b) || byAge(a, b) || byPriorityThenAge(a, b));
  const first = take === undefined ? jobs : jobs.slice(0, take);
  const stored = (await Promise.all(first.map((j) => store.jobGet(j.id)))).filter((s): s is StoredJob => s !== null && s.x.dispatchedAt !== undefined);
  // Within a priority, the order the log delivered them in: the order they became ready (a requeued job behind
  // jobs that were waiting), which equal enqueued_at stamps cannot tell.
  return stored.sort(
    (a, b) =>
      byRank(a.job, b.job) ||
      (aging ? 0 : (b.job.priority ?? 0) - (a.job.priority ?? 0)) ||
      a.x.dispatchedAt! - b.x.dispatchedAt! ||
      byPriorityThenAge(a.job, b.job),
  );
}

/**
 * The expirer's share of dispatched jobs, which the store's `jobExpire` does not see (it scans the states of
 * `STATE_SETS.expirable`): discards those past `expires_at`, up to `limit`.
 */
export async function expireDispatched(store: Driver, params: { now: number; nowIso: string; limit: number }): Promise<Job[]> {
  const out: Job[] = [];
  for (const queue of await store.queueList()) {
    for (const s of await dispatchedOf(store, queue.name)) {
      if (out.length >= params.limit) return out;
      if (s.x.expiresAt === undefined || s.x.expiresAt >= params.now) continue;
      const job = await expireOne(store, s, params.now, params.nowIso);
      if (job) out.push(job);
    }
  }
  return out;
}

export async function claimDispatched(store: Driver, params: ClaimParams): Promise<DispatchedClaim> {
  const claim = DISPATCH_EFFECTS.claim;
  const out: DispatchedClaim = { jobs: [], expired: [] };
  for (const queue of params.queues) {
    if (out.jobs.length >= params.limit) break;
    if ((await store.queueGet(queue))?.paused === true) continue;
    // Staged jobs and jobs other claimers take meanwhile fall out of the window: read a margin beyond the limit.
    const ageMs = ageBoostIntervalOf(await store.queueConfigGet(queue));
    const stored = await dispatchedOf(store, queue, (params.limit - out.jobs.length) * 2 + 8, ageMs);
    for (const s of stored) {
      if (out.jobs.length >= params.limit) break;
      if (s.x.expiresAt !== undefined && s.x.expiresAt < params.now) {
        const job = await expireOne(store, s, params.now, params.nowIso);
        if (job) out.expired.push(job);
        continue;
      }
      const changes = effectChanges(claim, params.now, params.nowIso);
      const visibility = params.visibilityMs ?? s.x.visibilityMs;
      const r = await store.jobTransition({
        id: s.job.id,
        from: claim.from,
        to: claim.to,
        expect: { attempt: s.job.attempt },
        set: { ...changes.set, worker_id: params.workerId, attempt: s.job.attempt + 1 },
        unset: changes.unset,
        x: { ...changes.x, claimVisibilityMs: visibility, visibleUntil: params.now + visibility, timeoutAt: params.now + s.x.timeoutMs },
        note: noteOf(claim, params.nowIso),
      });
      if (r.ok && 'job' in r) out.jobs.push(r.job);
    }
  }
  return out;
}
