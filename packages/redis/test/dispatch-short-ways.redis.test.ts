/**
 * A dispatch log's store (`dispatchLog: true`, the store of @ojskit/kafka): the short ways of the log's per-job
 * moves, the delivery (lib/transition.lua `dispatch_one`) and the claim of delivered jobs (job-claim-dispatched.lua's
 * first part, lib/claim-fields.lua), leave exactly what the general ways leave: the same job hashes, index entries
 * and scores, counts, history lines and answers. Twin queues get the same jobs; one queue's jobs take the short
 * ways, the other's the general ones (a delivery asking for the whole job, a claim naming a second queue).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { DISPATCH_EFFECTS, effectChanges, noteOf, type StoredJob } from '@ojskit/core/driver';
import type { Job } from '@ojskit/core';
import { iso, storedJob, T0 } from './jobs.js';
import { dispose, REDIS_URL, redisAvailable, testDriver } from './support.js';
import type { RedisDriver } from '../src/index.js';

const DISPATCHED_AT = T0 + 50;
const CLAIM_AT = T0 + 100;

/** Jobs unlike each other in what the short ways read or write: priority, a worker and retry time left over, meta. */
function templates(queue: string): StoredJob[] {
  return [
    storedJob({ queue }),
    storedJob({ queue, priority: 5, args: [{ a: 'x|y' }], meta: { tag: 'p|q' } }),
    storedJob({ queue, priority: -3 }),
    storedJob({ queue, attempt: 1, worker_id: 'old|worker', next_attempt_at: iso(T0 - 10) } as Partial<Job>),
    storedJob({ queue, type: 'other.type' }, { timeoutMs: 5_000 }),
  ];
}

/** Moves each job `available → pending` as the log's dispatcher does; `returning` 'summary' takes the short way. */
async function deliver(driver: RedisDriver, ids: readonly string[], returning: 'summary' | 'job') {
  const effect = DISPATCH_EFFECTS.dispatch;
  const changes = effectChanges(effect, DISPATCHED_AT, iso(DISPATCHED_AT));
  const note = noteOf(effect, iso(DISPATCHED_AT));
  // issued together, as the dispatcher does: one script call for the batch
  return Promise.all(ids.map((id) => driver.jobTransition({ id, from: effect.from, to: effect.to, set: changes.set, x: changes.x, returning, note })));
}

let cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanup) await c();
  cleanup = [];
});

describe.skipIf(!redisAvailable)('dispatch log store: short ways', () => {
  it('the delivery and the claim of delivered jobs write what the general ways write', async () => {
    const driver = testDriver({ dispatchLog: true });
    const redis = new Redis(REDIS_URL);
    cleanup.push(
      () => dispose(driver),
      () => redis.quit(),
    );
    const [fast, slow] = ['fastq', 'slowq'];
    const fastJobs = templates(fast);
    const slowJobs = templates(slow);
    for (const jobs of [fastJobs, slowJobs]) expect(await driver.jobInsert({ jobs, now: T0, nowIso: iso(T0) })).toMatchObject({ ok: true });
    const fastIds = fastJobs.map((j) => j.job.id);
    const slowIds = slowJobs.map((j) => j.job.id);

    /** `value` with the fast queue's names (its queue and job ids) replaced by the slow one's. */
    const asSlow = (value: unknown): unknown => {
      let text = JSON.stringify(value);
      fastIds.forEach((id, i) => (text = text.replaceAll(id, slowIds[i]!)));
      return JSON.parse(text.replaceAll(fast, slow)) as unknown;
    };
    const prefix = driver.prefix;
    /** Everything the store keeps of a queue's jobs, raw: hashes, index scores, counts, history lines. */
    const snapshot = async (queue: string, ids: readonly string[]) => {
      const base = `${prefix}:{${queue}}:`;
      const jobs = await Promise.all(ids.map(async (id) => Object.entries(await redis.hgetall(`${base}j:${id}`)).sort()));
      const indexes: Record<string, unknown> = {};
      for (const index of ['avail', 'disp', 'st:pending', 'active', 'exp']) {
        indexes[index] = await Promise.all(ids.map((id) => redis.zscore(`${base}${index}`, id)));
      }
      const history = await Promise.all(ids.map((id) => redis.lrange(`${base}h:${id}`, 0, -1)));
      return { jobs, indexes, counts: await redis.hgetall(`${base}counts`), history };
    };

    const fastDelivered = await deliver(driver, fastIds, 'summary');
    const slowDelivered = await deliver(driver, slowIds, 'job');
    expect(fastDelivered.every((r) => r.ok)).toBe(true);
    expect(slowDelivered.every((r) => r.ok)).toBe(true);
    // the answer: the summary of the job as the general way reads it
    expect(asSlow(fastDelivered.map((r) => r.ok && 'summary' in r && r.summary))).toEqual(
      slowDelivered.map((r) => r.ok && 'job' in r && { id: r.job.id, type: r.job.type, queue: r.job.queue, state: r.job.state, attempt: r.job.attempt }),
    );
    expect(asSlow(await snapshot(fast, fastIds))).toEqual(await snapshot(slow, slowIds));
    // a delivery of a job that moved on is refused by both ways alike
    const again = await deliver(driver, fastIds.slice(0, 1), 'summary');
    expect(again[0]).toMatchObject({ ok: false, state: 'pending' });

    const claim = (queues: string[]) => driver.jobClaim({ queues, limit: 10, workerId: 'w1', now: CLAIM_AT, nowIso: iso(CLAIM_AT), dispatched: true });
    const fastClaim = await claim([fast]);
    // a second (empty) queue named: the general claim
    const slowClaim = await claim([slow, 'emptyq']);
    expect(fastClaim.jobs.map((j) => j.id)).toHaveLength(fastIds.length);
    expect(asSlow(fastClaim)).toEqual(slowClaim);
    expect(asSlow(await snapshot(fast, fastIds))).toEqual(await snapshot(slow, slowIds));
    const stored = await driver.jobGet(fastIds[3]!);
    expect(stored?.job).toMatchObject({ state: 'active', attempt: 2, worker_id: 'w1' });
    expect(stored?.job.next_attempt_at).toBeUndefined();
    expect(stored?.x.dispatchedAt).toBeUndefined();
  });
});
