/**
 * job-complete-many.lua (the ACK batch's own script) against job-transition-many.lua (the general one): the
 * same batch, run on two identical stores, must give the same results, leave the same jobs and keep every
 * index and count right.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { allowedFrom, type StoredJob, type TransitionOp, type TransitionResult } from '@ojskit/core/driver';
import { RedisDriver } from '../src/index.js';
import { ScriptRunner } from '../src/script-runner.js';
import { decodeTransitionReply, pushTransitionBatch } from '../src/transition-args.js';
import { pushCompletionBatch } from '../src/completion-args.js';
import { indexViolations } from './invariants.js';
import { iso, storedJob, T0 } from './jobs.js';
import { dispose, redisAvailable, testDriver } from './support.js';

const drivers: RedisDriver[] = [];
afterEach(async () => {
  await Promise.all(drivers.splice(0).map((d) => dispose(d)));
});

/** An ACK as the engine builds it (core's ackOp). */
function ack(id: string, now: number, expect: TransitionOp['expect'], result?: unknown): TransitionOp {
  const nowIso = iso(now);
  return {
    id,
    from: allowedFrom('completed', 'ack'),
    to: 'completed',
    set: result === undefined ? { completed_at: nowIso } : { completed_at: nowIso, result },
    unset: ['error', 'worker_id', 'next_attempt_at'],
    x: { finishedAt: now, visibleUntil: null, timeoutAt: null, claimVisibilityMs: null },
    returning: 'summary',
    ...(expect ? { expect } : {}),
  };
}

/** Two stores holding the same jobs, claimed the same way (by worker w1 at T0 + 1). */
async function twins(jobs: StoredJob[], claimLimit: number): Promise<[RedisDriver, RedisDriver]> {
  const pair: RedisDriver[] = [];
  for (let k = 0; k < 2; k++) {
    const d = testDriver();
    drivers.push(d);
    await d.jobInsert({ jobs: structuredClone(jobs), now: T0, nowIso: iso(T0) });
    await d.jobClaim({ queues: ['default', 'other'], limit: claimLimit, workerId: 'w1', now: T0 + 1, nowIso: iso(T0 + 1) });
    pair.push(d);
  }
  return pair as [RedisDriver, RedisDriver];
}

/** The batch through job-transition-many, whatever it holds. */
async function general(d: RedisDriver, ops: TransitionOp[]): Promise<TransitionResult[]> {
  const args: Array<string | number> = [d.prefix];
  pushTransitionBatch(ops, args);
  const replies = (await new ScriptRunner(d.redis).run('job-transition-many', args)) as unknown[];
  return replies.map((reply, i) => decodeTransitionReply(reply, ops[i]!));
}

async function snapshot(d: RedisDriver, ids: string[]): Promise<unknown> {
  const jobs = await Promise.all(ids.map((id) => d.jobGet(id)));
  const counts = await d.redis.hgetall(`${d.prefix}:{default}:counts`);
  const fin = await d.redis.zrange(`${d.prefix}:{default}:fin`, 0, -1, 'WITHSCORES');
  return { jobs, counts, fin };
}

describe.skipIf(!redisAvailable)('job-complete-many (the ACK batch script)', () => {
  it('answers and writes what the general transition script does, guard failures included', async () => {
    // job 1 belongs to a workflow whose id holds '|', the separator of the script's success answer
    const jobs = Array.from({ length: 6 }, (_, i) => storedJob({ args: [i], priority: 10 - i, ...(i === 1 ? { workflow_id: 'wf|1' } : {}) }));
    // the last job stays available: only five are claimed (priority order: jobs 0..4)
    const [fast, slow] = await twins(jobs, 5);
    const [j0, j1, j2, j3, j4, j5] = jobs.map((j) => j.job.id);
    const ops = [
      ack(j0!, T0 + 10, { workerId: 'w1', attempt: 1 }),
      ack(j1!, T0 + 10, { workerId: 'w1', attempt: 1 }, { ok: true, n: -0, s: 'é"\\' }),
      ack(j2!, T0 + 11, { workerId: 'w2', attempt: 1 }),
      ack(j3!, T0 + 11, { workerId: 'w1', attempt: 2 }),
      ack(j0!, T0 + 12, { workerId: 'w1', attempt: 1 }),
      ack('no-such-job', T0 + 12, { workerId: 'w1', attempt: 1 }),
      ack(j5!, T0 + 12, { workerId: 'w1', attempt: 1 }),
      ack(j4!, T0 + 13, undefined, null),
    ];
    const args: Array<string | number> = [fast.prefix];
    expect(pushCompletionBatch(ops, args, () => undefined)).toBe(true);
    const got = await fast.jobTransitionMany(ops);
    const want = await general(slow, ops);
    expect(got).toEqual(want);
    expect(got.map((r) => r.ok)).toEqual([true, true, false, false, false, false, false, true]);
    expect(got[1]).toMatchObject({ summary: { id: j1, workflow_id: 'wf|1', state: 'completed', attempt: 1 } });
    expect('workflow_id' in (got[0] as { summary: object }).summary).toBe(false);
    const ids = jobs.map((j) => j.job.id);
    expect(await snapshot(fast, ids)).toEqual(await snapshot(slow, ids));
    const done = await fast.jobGet(j1!);
    expect(done!.job.state).toBe('completed');
    expect(Object.is((done!.job.result as { n: number }).n, -0)).toBe(true);
    expect(done!.job.worker_id).toBeUndefined();
    expect(await indexViolations(fast)).toEqual([]);
    expect(await indexViolations(slow)).toEqual([]);
  });

  it('finds a job the caller claimed in another queue, and ACKs of one job each (the idle worker) take it too', async () => {
    const jobs = [storedJob({ queue: 'other' }), storedJob()];
    const [fast, slow] = await twins(jobs, 2);
    for (const job of jobs) {
      const op = ack(job.job.id, T0 + 20, { workerId: 'w1', attempt: 1 });
      expect(await fast.jobTransition(op)).toEqual((await general(slow, [op]))[0]);
    }
    expect(await indexViolations(fast)).toEqual([]);
    expect((await fast.jobGet(jobs[0]!.job.id))!.job.state).toBe('completed');
  });

  it('completes what this driver claimed by compare-and-set of @h, and takes the guard when @h changed since', async () => {
    const jobs = Array.from({ length: 4 }, (_, i) => storedJob({ args: [i], priority: 10 - i }));
    const [fast, slow] = await twins(jobs, 4);
    const [j0, j1, j2, j3] = jobs.map((j) => j.job.id) as [string, string, string, string];
    for (const d of [fast, slow]) {
      // j1's deadline moves (its '@h' is no longer the claim's); j2 fails meanwhile (another party's op)
      await d.jobHeartbeat({ ids: [j1], now: T0 + 5, visibilityMs: 60_000 });
    }
    const fail: TransitionOp = { id: j2, from: ['active'], to: 'retryable', returning: 'summary', x: { finishedAt: T0 + 6 } };
    await general(slow, [fail]);
    await general(fast, [fail]);
    const runner = (fast as unknown as { scripts: ScriptRunner }).scripts;
    const calls: Array<{ raw: readonly string[] | undefined; reply: unknown }> = [];
    const run = runner.run.bind(runner);
    runner.run = async (name, args, now, raw) => {
      const reply = await run(name, args, now, raw);
      if (name === 'job-complete-many') calls.push({ raw, reply });
      return reply;
    };
    const ops = [j0, j1, j2, j3].map((id) => ack(id, T0 + 10, { workerId: 'w1', attempt: 1 }));
    const got = await fast.jobTransitionMany(ops);
    expect(got).toEqual(await general(slow, ops));
    expect(got.map((r) => r.ok)).toEqual([true, true, false, true]);
    // every op went as compare-and-set; j0 and j3 were written by it, j1 and j2 took the guard
    expect(calls).toHaveLength(1);
    expect(calls[0]!.raw).toHaveLength(8);
    const replies = calls[0]!.reply as unknown[];
    expect(replies.map((r) => typeof r === 'string' && r.startsWith('='))).toEqual([true, false, false, true]);
    const ids = jobs.map((j) => j.job.id);
    expect(await snapshot(fast, ids)).toEqual(await snapshot(slow, ids));
    expect(await indexViolations(fast)).toEqual([]);
    // a second ACK of j0 finds '@h' completed: no hint is left, and the guard refuses it
    expect(await fast.jobTransition(ack(j0, T0 + 11, { workerId: 'w1', attempt: 1 }))).toEqual({ ok: false, state: 'completed', job: expect.anything() });
  });

  it('lets one of two drivers win when both complete one job at once, the compare-and-set against the guard', async () => {
    const [a] = await twins([storedJob()], 1);
    const b = testDriver({}, a.prefix);
    drivers.push(b);
    const id = (await a.jobList({ limit: 1, offset: 0 })).jobs[0]!.id;
    for (let round = 0; round < 2; round++) {
      const op = ack(id, T0 + 10, { workerId: 'w1', attempt: 1 });
      const results = await Promise.all([a.jobTransitionMany([op]), b.jobTransitionMany([op])]);
      expect(results.flat().filter((r) => r.ok)).toHaveLength(round === 0 ? 1 : 0);
    }
    expect((await a.jobGet(id))!.job.state).toBe('completed');
    expect(await indexViolations(a)).toEqual([]);
  });

  it('leaves other batches to the general script: a FAIL among the ACKs, a completion that moves queues, a guard on the deadline', () => {
    const id = 'x';
    const fail: TransitionOp = { id, from: ['active'], to: 'retryable', returning: 'summary', x: { finishedAt: T0 } };
    const move: TransitionOp = { ...ack(id, T0, undefined), set: { completed_at: iso(T0), queue: 'elsewhere' } };
    const deadline: TransitionOp = { ...ack(id, T0, undefined), expect: { visibleUntil: T0 } };
    const wantsJob: TransitionOp = { ...ack(id, T0, undefined), returning: 'job' };
    const asked: string[] = [];
    for (const odd of [fail, move, deadline, wantsJob]) {
      const out: Array<string | number> = [];
      expect(pushCompletionBatch([ack('y', T0, undefined), odd], out, (i) => {
        asked.push(i);
        return undefined;
      })).toBe(false);
      expect(out).toEqual([]);
    }
    // a refused batch leaves the claimed-queue hints for the general script
    expect(asked).toEqual([]);
    // ACKs of one instant share a shape, with a result or without; another instant is another shape
    const out: Array<string | number> = [];
    const same = [ack('a', T0, undefined), ack('b', T0, undefined, { r: 1 }), ack('c', T0, undefined, null)];
    expect(pushCompletionBatch(same, out, () => undefined)).toBe(true);
    expect(out[0]).toBe(1);
    const twoInstants: Array<string | number> = [];
    expect(pushCompletionBatch([...same, ack('d', T0 + 1, undefined)], twoInstants, () => undefined)).toBe(true);
    expect(twoInstants[0]).toBe(2);
  });
});
