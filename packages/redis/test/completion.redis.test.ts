/**
 * job-complete-many.lua (jobCompleteMany's script) against job-transition-many.lua (the general one) running the
 * same ops (core's completionOp): the same batch, run on two identical stores, must give the same results, leave
 * the same jobs and keep every index and count right.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { completionOp, type CompleteItem, type StoredJob, type TransitionOp, type TransitionResult } from '@ojskit/core/driver';
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

/** An ACK item at `now`, with its guards and result. */
interface Ack {
  item: CompleteItem;
  now: number;
}

function ack(id: string, now: number, expect?: { workerId?: string; attempt?: number }, result?: unknown): Ack {
  return { item: { id, ...expect, ...(result === undefined ? {} : { result }) }, now };
}

/** The ACKs through jobCompleteMany, one call per instant (in order), results in ACK order. */
async function complete(d: RedisDriver, acks: readonly Ack[], returning: 'job' | 'summary' = 'summary'): Promise<TransitionResult[]> {
  const out: TransitionResult[] = [];
  for (let i = 0; i < acks.length;) {
    const now = acks[i]!.now;
    const run: CompleteItem[] = [];
    for (; i < acks.length && acks[i]!.now === now; i++) run.push(acks[i]!.item);
    out.push(...(await d.jobCompleteMany({ jobs: run, now, nowIso: iso(now), returning })));
  }
  return out;
}

/** The ACKs as the ops job-transition-many would apply. */
const asOps = (acks: readonly Ack[], returning: 'job' | 'summary' = 'summary'): TransitionOp[] =>
  acks.map((a) => completionOp(a.item, a.now, iso(a.now), returning));

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
    // job 1 belongs to a workflow whose id holds '|', the separator of the script's summary answer
    const jobs = Array.from({ length: 6 }, (_, i) => storedJob({ args: [i], priority: 10 - i, ...(i === 1 ? { workflow_id: 'wf|1' } : {}) }));
    // the last job stays available: only five are claimed (priority order: jobs 0..4)
    const [fast, slow] = await twins(jobs, 5);
    const [j0, j1, j2, j3, j4, j5] = jobs.map((j) => j.job.id);
    const acks = [
      ack(j0!, T0 + 10, { workerId: 'w1', attempt: 1 }),
      ack(j1!, T0 + 10, { workerId: 'w1', attempt: 1 }, { ok: true, n: -0, s: 'é"\\' }),
      ack(j2!, T0 + 11, { workerId: 'w2', attempt: 1 }),
      ack(j3!, T0 + 11, { workerId: 'w1', attempt: 2 }),
      ack(j0!, T0 + 12, { workerId: 'w1', attempt: 1 }),
      ack('no-such-job', T0 + 12, { workerId: 'w1', attempt: 1 }),
      ack(j5!, T0 + 12, { workerId: 'w1', attempt: 1 }),
      ack(j4!, T0 + 13, undefined, null),
    ];
    const got = await complete(fast, acks);
    const want = await general(slow, asOps(acks));
    // the workflow member comes back in full (CompleteManyParams.returning), the others as the general script says
    expect(got[1]).toEqual({ ok: true, from: 'active', job: (await slow.jobGet(j1!))!.job });
    expect(want[1]).toMatchObject({ summary: { id: j1, workflow_id: 'wf|1', state: 'completed', attempt: 1 } });
    expect([got[0], ...got.slice(2)]).toEqual([want[0], ...want.slice(2)]);
    expect(got.map((r) => r.ok)).toEqual([true, true, false, false, false, false, false, true]);
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
      const one = ack(job.job.id, T0 + 20, { workerId: 'w1', attempt: 1 });
      expect(await complete(fast, [one], 'job')).toEqual(await general(slow, asOps([one], 'job')));
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
    const acks = [j0, j1, j2, j3].map((id) => ack(id, T0 + 10, { workerId: 'w1', attempt: 1 }));
    const got = await complete(fast, acks);
    expect(got).toEqual(await general(slow, asOps(acks)));
    expect(got.map((r) => r.ok)).toEqual([true, true, false, true]);
    // every op went as compare-and-set; j0 and j3 were written by it, j1 and j2 took the guard
    expect(calls).toHaveLength(1);
    // per job claimed (each has an '@h' of its own): '@h' as claimed, as completed, and the history line
    expect(calls[0]!.raw).toHaveLength(12);
    const replies = calls[0]!.reply as unknown[];
    expect(replies.map((r) => typeof r === 'string' && r.startsWith('='))).toEqual([true, false, false, true]);
    const ids = jobs.map((j) => j.job.id);
    expect(await snapshot(fast, ids)).toEqual(await snapshot(slow, ids));
    // the history lines the caller encoded for the compare-and-sets are the ones the script writes itself
    const histories = (d: RedisDriver) => Promise.all(ids.map((id) => d.jobHistory({ id })));
    expect(await histories(fast)).toEqual(await histories(slow));
    expect((await fast.jobHistory({ id: j0 }))!.entries.at(-1)).toEqual({
      at: iso(T0 + 10),
      from: 'active',
      to: 'completed',
      trigger: 'ack',
      attempt: 1,
      worker_id: 'w1',
    });
    expect(await indexViolations(fast)).toEqual([]);
    // a second ACK of j0 finds '@h' completed: no hint is left, and the guard refuses it
    expect(await complete(fast, [ack(j0, T0 + 11, { workerId: 'w1', attempt: 1 })])).toEqual([{ ok: false, state: 'completed', job: expect.anything() }]);
  });

  it('lets one of two drivers win when both complete one job at once, the compare-and-set against the guard', async () => {
    const [a] = await twins([storedJob()], 1);
    const b = testDriver({}, a.prefix);
    drivers.push(b);
    const id = (await a.jobList({ limit: 1, offset: 0 })).jobs[0]!.id;
    for (let round = 0; round < 2; round++) {
      const one = ack(id, T0 + 10, { workerId: 'w1', attempt: 1 });
      const results = await Promise.all([complete(a, [one]), complete(b, [one])]);
      expect(results.flat().filter((r) => r.ok)).toHaveLength(round === 0 ? 1 : 0);
    }
    expect((await a.jobGet(id))!.job.state).toBe('completed');
    expect(await indexViolations(a)).toEqual([]);
  });

  it('sends what ACKs of one instant share once: a result or none, a summary wanted; another instant or the whole job wanted is another shape', () => {
    const op = (a: Ack, returning: 'job' | 'summary' = 'summary') => completionOp(a.item, a.now, iso(a.now), returning);
    const out: Array<string | number> = [];
    const same = [op(ack('a', T0)), op(ack('b', T0, undefined, { r: 1 })), op(ack('c', T0, undefined, null))];
    pushCompletionBatch(same, out, () => undefined);
    expect(out[0]).toBe(1);
    const three: Array<string | number> = [];
    pushCompletionBatch([...same, op(ack('d', T0 + 1)), op(ack('e', T0), 'job')], three, () => undefined);
    expect(three[0]).toBe(3);
  });
});
