/**
 * What only the Redis driver has to get right beyond the shared driver suite (`driver-contract.redis.test.ts`,
 * which covers every primitive, the races and the transition table): its codec (packed and sealed fields),
 * key layout and hash tags, index invariants under random operations, the claim hint, the short ways of
 * insert and claim, write coalescing, and connection failures.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Job } from '@ojskit/core';
import type { JobState, StoredJob } from '@ojskit/core/driver';
import { RedisDriver } from '../src/index.js';
import { unpackHot } from '../src/codec.js';
import { ACTIVE_ANCHOR } from '../src/script-source.js';
import { indexViolations } from './invariants.js';
import { iso, storedJob, T0 } from './jobs.js';
import { dispose, REDIS_URL, redisAvailable, testDriver, uniquePrefix } from './support.js';

const drivers: RedisDriver[] = [];
function driver(prefix?: string): RedisDriver {
  const d = testDriver({}, prefix);
  drivers.push(d);
  return d;
}
afterEach(async () => {
  await Promise.all(drivers.splice(0).map((d) => dispose(d)));
});

const insert = (d: RedisDriver, jobs: StoredJob[], now = T0) => d.jobInsert({ jobs, now, nowIso: iso(now) });
const claim = (d: RedisDriver, queues: string[], limit: number, now = T0, workerId = 'w1') => d.jobClaim({ queues, limit, workerId, now, nowIso: iso(now) });

describe.skipIf(!redisAvailable)('RedisDriver (Redis only)', () => {
  it("keeps -0 in user data (the codec stores numbers as Lua and JSON cannot); the rest of data fidelity is the driver suite's insert.user-data-fidelity", async () => {
    const d = driver();
    const args = [-0, 0.1 + 0.2, [-0]];
    const job = storedJob({ args });
    await insert(d, [job]);
    const got = (await d.jobGet(job.job.id))!.job.args as unknown[];
    expect(got).toEqual(args);
    expect(Object.is(got[0], -0)).toBe(true);
    expect(Object.is((got[2] as unknown[])[0], -0)).toBe(true);
  });

  it('completes a job it claimed where it claimed it, and finds a job that moved since by its id', async () => {
    const d = driver();
    const ack = (id: string) => d.jobCompleteMany({ jobs: [{ id, attempt: 1 }], now: T0, nowIso: iso(T0), returning: 'summary' });
    const [here, moved] = [storedJob({ queue: 'hint' }), storedJob({ queue: 'hint' })];
    await insert(d, [here, moved]);
    expect((await claim(d, ['hint'], 2)).jobs).toHaveLength(2);
    // Without its directory entry a job is found only where this driver claimed it: the hint was used.
    await d.redis.hdel(`${d.prefix}:ids`, here.job.id);
    expect((await ack(here.job.id))[0]!.ok).toBe(true);
    // A job no longer where it was claimed (its hash and directory entry moved to another queue): found by id.
    await d.redis.rename(`${d.prefix}:{hint}:j:${moved.job.id}`, `${d.prefix}:{elsewhere}:j:${moved.job.id}`);
    await d.redis.hset(`${d.prefix}:ids`, moved.job.id, 'elsewhere');
    const [result] = await ack(moved.job.id);
    expect(result!.ok).toBe(true);
    expect((await d.jobGet(moved.job.id))!.job.state).toBe('completed');
    // A hint serves one transition: the next one reads the directory again.
    await d.redis.hdel(`${d.prefix}:ids`, moved.job.id);
    expect((await d.jobTransition({ id: moved.job.id, from: ['completed'], to: 'completed', set: { result: 1 } })).ok).toBe(false);
  });

  it('keeps concurrent inserts independent when they share one script call', async () => {
    const d = driver();
    const keyed = () => storedJob({ queue: 'co' }, { uniqueKey: 'same', uniqueStates: ['available'] });
    const dup = storedJob({ queue: 'co' });
    const first = keyed();
    const last = storedJob({ queue: 'co' });
    const calls = [
      insert(d, [first]),
      insert(d, [storedJob({ queue: 'co' }), keyed()]), // aborts as a whole: nothing of it is stored
      insert(d, [dup]),
      insert(d, [storedJob({ queue: 'co' }, {}), { ...dup, job: { ...dup.job } }]), // duplicate id of the call before
      insert(d, [last]),
    ];
    const results = await Promise.all(calls);
    expect(results.map((r) => r.ok)).toEqual([true, false, true, false, true]);
    expect(results[1]).toMatchObject({ ok: false, index: 1, reason: 'unique' });
    expect(results[3]).toMatchObject({ ok: false, index: 1, reason: 'duplicate_id' });
    expect((await d.jobCounts({ queue: 'co' })).available).toBe(3);
    expect(await indexViolations(d)).toEqual([]);
    // stored in call order (one FIFO sequence across the calls), each found by id
    expect((await claim(d, ['co'], 10)).jobs.map((j) => j.id)).toEqual([first.job.id, dup.job.id, last.job.id]);
    for (const stored of [first, dup, last]) expect((await d.jobGet(stored.job.id))?.job.id).toBe(stored.job.id);
  });

  it('keeps every index consistent through a random mix of primitives', async () => {
    const d = driver();
    let seed = 42;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
    const queues = ['a', 'b', 'c'];
    const ids: string[] = [];
    let now = T0;
    for (let step = 0; step < 400; step++) {
      if (step % 40 === 39) expect(await indexViolations(d), `after step ${step}`).toEqual([]);
      now += Math.floor(rnd() * 2000);
      const nowIso = iso(now);
      const op = rnd();
      if (op < 0.3 || ids.length === 0) {
        const state: JobState = pick(['available', 'scheduled', 'available', 'pending'] as const);
        const x = {
          ...(state === 'scheduled' ? { dueAt: now + Math.floor(rnd() * 5000) } : {}),
          ...(rnd() < 0.3 ? { expiresAt: now + Math.floor(rnd() * 8000) } : {}),
          ...(rnd() < 0.3
            ? {
                uniqueKey: `k${Math.floor(rnd() * 4)}`,
                uniqueStates: ['available', 'scheduled'] as JobState[],
                uniqueOnConflict: pick(['reject', 'ignore', 'replace'] as const),
              }
            : {}),
        };
        const job = storedJob(
          { queue: pick(queues), state, priority: Math.floor(rnd() * 5) - 2, ...(state === 'scheduled' ? { scheduled_at: iso(x.dueAt!) } : {}) },
          x,
        );
        const r = await d.jobInsert({ jobs: [job], now, nowIso });
        if (r.ok) ids.push(job.job.id);
      } else if (op < 0.5) {
        await d.jobClaim({ queues: [pick(queues), pick(queues)], limit: 3, workerId: 'w', now, nowIso, visibilityMs: Math.floor(rnd() * 3000) });
      } else if (op < 0.56) {
        // the named primitives, on whatever state the picked jobs are in (most are refused)
        await d.jobCompleteMany({
          jobs: [
            { id: pick(ids), result: step },
            { id: pick(ids), attempt: 1 },
          ],
          now,
          nowIso,
          returning: rnd() < 0.5 ? 'summary' : 'job',
        });
        const outcome = pick(['retry', 'discard', 'reclaim', 'reclaimDiscard', 'requeue'] as const);
        await d.jobFailMany({ jobs: [{ id: pick(ids), outcome, attempt: 1, retryDelayMs: 1000, deadLetter: rnd() < 0.5 }], now, nowIso });
      } else if (op < 0.62) {
        const id = pick(ids);
        const to = pick(['completed', 'retryable', 'discarded', 'cancelled', 'available'] as const);
        await d.jobTransition({
          id,
          from: ['active', 'scheduled', 'available', 'retryable', 'pending'],
          to,
          x: to === 'retryable' ? { dueAt: now + 1000 } : to === 'discarded' ? { finishedAt: now, deadLetter: rnd() < 0.5 } : { finishedAt: now },
          ...(rnd() < 0.1 ? { set: { queue: pick(queues) } } : {}),
        });
      } else if (op < 0.7) {
        await d.jobHeartbeat({ ids: [pick(ids), pick(ids)], now, visibilityMs: 5000 });
      } else if (op < 0.78) {
        await d.jobPromote({ now, nowIso, limit: 10 });
      } else if (op < 0.85) {
        await d.jobExpire({ now, nowIso, limit: 10 });
      } else if (op < 0.9) {
        await d.jobPrune({ before: now - 3000, limit: 5, deadLetter: rnd() < 0.5 });
      } else if (op < 0.95) {
        await d.jobDelete({ id: pick(ids) });
      } else {
        await d.jobTransition({ id: pick(ids), from: ['discarded'], to: 'available', expect: { deadLetter: true }, x: { deadLetter: null, finishedAt: null } });
      }
    }
    expect(await indexViolations(d)).toEqual([]);
    const counts = await d.jobCounts({});
    const listed = await d.jobList({ limit: 10_000, offset: 0 });
    expect(listed.total).toBe(Object.values(counts).reduce((a, b) => a + b, 0));
    // 400 steps of a few round trips each: 44 s on the shared machine at load 50, over the 20 s default
  }, 120_000);

  it('keeps the envelope fields fixed at insert in one sealed field and the ones a claim or an ACK rewrites in one packed field; a transition may override a sealed one, never remove it', async () => {
    const d = driver();
    const job = storedJob({ args: [-0, 'x'], meta: { m: 1 }, tags: ['t'], retry: { max_attempts: 5 } } as never);
    await insert(d, [job]);
    const hash = await d.redis.hgetall(`${d.prefix}:{${job.job.queue}}:j:${job.job.id}`);
    expect(Object.keys(hash).sort()).toEqual(['@e', '@h']);
    for (const field of ['specversion', 'id', 'queue', 'created_at', 'args', 'meta', 'max_attempts', 'tags', 'retry']) expect(hash).not.toHaveProperty(field);
    // the fields a claim and an ACK rewrite are packed in '@h'
    expect(unpackHot(hash['@h']!)).toEqual({
      state: 'available',
      attempt: '0',
      type: 'test.noop',
      priority: '0',
      enqueued_at: iso(T0),
      '@visibilityMs': '30000',
      '@timeoutMs': '60000',
    });
    const got = await d.jobGet(job.job.id);
    expect(got!.job).toEqual(job.job);
    expect(Object.is((got!.job.args as unknown[])[0], -0)).toBe(true);
    await claim(d, [job.job.queue], 1);
    await expect(d.jobTransition({ id: job.job.id, from: ['active'], to: 'active', unset: ['tags'] })).rejects.toThrow(/fixed at insert/);
    expect((await d.jobGet(job.job.id))!.job.tags).toEqual(['t']);
    expect(await d.jobTransition({ id: job.job.id, from: ['active'], to: 'active', set: { meta: { m: 2 } } })).toMatchObject({ ok: true });
    expect((await d.jobGet(job.job.id))!.job.meta).toEqual({ m: 2 });
  });

  it("keeps a worker id holding '|' (the last packed field) whole, through claim, heartbeat, guarded ACK and reads", async () => {
    const d = driver();
    const job = storedJob();
    await insert(d, [job]);
    const worker = 'host|pid|a|';
    const claimed = (await claim(d, [job.job.queue], 1, T0 + 1, worker)).jobs[0]!;
    expect(claimed.worker_id).toBe(worker);
    expect((await d.jobGet(job.job.id))!.job.worker_id).toBe(worker);
    const beat = await d.jobHeartbeat({ ids: [job.job.id], workerId: worker, now: T0 + 2 });
    expect(beat.extended.map((e) => e.worker_id)).toEqual([worker]);
    const ack = (workerId: string) =>
      d.jobTransition({
        id: job.job.id,
        from: ['active'],
        to: 'completed',
        expect: { workerId, attempt: 1 },
        set: { completed_at: iso(T0 + 3) },
        unset: ['worker_id'],
        x: { finishedAt: T0 + 3, visibleUntil: null },
        returning: 'summary',
      });
    expect(await ack('host|pid|a')).toMatchObject({ ok: false, state: 'active' });
    expect(await ack(worker)).toMatchObject({ ok: true, from: 'active' });
    const done = (await d.jobGet(job.job.id))!;
    expect(done.job).toMatchObject({ state: 'completed', attempt: 1, completed_at: iso(T0 + 3) });
    expect(done.job.worker_id).toBeUndefined();
    expect(await indexViolations(d)).toEqual([]);
  });

  it("refuses to store '|' in a packed field other than the worker id, before anything is written", async () => {
    const d = driver();
    const job = storedJob();
    await insert(d, [job]);
    await claim(d, [job.job.queue], 1);
    await expect(d.jobTransition({ id: job.job.id, from: ['active'], to: 'active', set: { started_at: 'a|b' } })).rejects.toThrow(
      /'started_at' cannot be stored/,
    );
    await expect(insert(d, [storedJob({ enqueued_at: 'x|y' })])).rejects.toThrow(/'enqueued_at' cannot be stored/);
    expect((await d.jobGet(job.job.id))!.job.started_at).toBe(iso(T0));
    expect(await indexViolations(d)).toEqual([]);
  });

  it('dates a queue created by moving a job that was never enqueued by the job (created_at, sealed in @e)', async () => {
    const d = driver();
    const job = storedJob(
      { queue: 'from', state: 'scheduled', args: [{ created_at: 'not this one' }], created_at: iso(T0 - 5_000), enqueued_at: undefined },
      { dueAt: T0 + 60_000 },
    );
    await insert(d, [job]);
    const moved = await d.jobTransition({ id: job.job.id, from: ['scheduled'], to: 'scheduled', set: { queue: 'later' } });
    expect(moved).toMatchObject({ ok: true, job: { queue: 'later', created_at: iso(T0 - 5_000) } });
    expect((await d.queueGet('later'))!.created_at).toBe(iso(T0 - 5_000));
    expect(await indexViolations(d)).toEqual([]);
  });

  it('keeps per-queue keys under a {queue} hash tag and global keys few and documented', async () => {
    const d = driver();
    const u = storedJob({ queue: 'tagged' }, { uniqueKey: 'k', uniqueStates: ['available'] });
    await insert(d, [u, storedJob({ queue: 'tagged', state: 'scheduled' }, { dueAt: T0 + 10 })]);
    await claim(d, ['tagged'], 1);
    await d.leaseAcquire({ name: 'svc', owner: 'me', ttlMs: 1000, now: T0 });
    const keys = await d.redis.keys(`${d.prefix}:*`);
    const rest = keys.map((k) => k.slice(d.prefix.length + 1));
    const perQueue = rest.filter((k) => k.startsWith('{tagged}:'));
    const global = rest.filter((k) => !k.startsWith('{tagged}:')).sort();
    expect(global).toEqual(['ids', 'lease:svc', 'queues', 'u:k']);
    for (const k of perQueue) expect(k).toMatch(/^\{tagged\}:(j:.+|h:.+|hdrop|counts|st:[a-z]+|avail|due|active|exp|fin|dl|seq|meta)$/);
  });

  it('prunes finished jobs without leaving any trace', async () => {
    const d = driver();
    const jobs = Array.from({ length: 20 }, (_, i) => storedJob({ queue: 'p' }, { uniqueKey: `u${i}` }));
    await insert(d, jobs);
    const got = await claim(d, ['p'], 20);
    await Promise.all(
      got.jobs.map((j, i) =>
        d.jobTransition({
          id: j.id,
          from: ['active'] as JobState[],
          to: (i % 2 ? 'completed' : 'discarded') as JobState,
          x: { finishedAt: T0 + i, ...(i % 4 === 0 ? { deadLetter: true } : {}) },
          returning: 'summary' as const,
        }),
      ),
    );
    expect(await d.jobPrune({ before: T0 + 100, limit: 100 })).toBe(15);
    expect(await d.jobPrune({ before: T0 + 100, limit: 100, deadLetter: true })).toBe(5);
    const keys = await d.redis.keys(`${d.prefix}:*`);
    // what a queue keeps: its record, counts, FIFO counter, and its active index holding only the anchor
    expect(keys.map((k) => k.slice(d.prefix.length + 1)).sort()).toEqual(['queues', '{p}:active', '{p}:counts', '{p}:meta', '{p}:seq']);
    expect(await d.redis.zrange(`${d.prefix}:{p}:active`, 0, -1)).toEqual([ACTIVE_ANCHOR]);
    expect(Object.values(await d.jobCounts({ queue: 'p' })).every((n) => n === 0)).toBe(true);
  });

  it('rewrites exactly the packed fields a claim sets, and keeps the others as they were', async () => {
    const d = driver();
    const job = storedJob(
      { queue: 'exact', priority: 7, attempt: 2, enqueued_at: iso(T0 + 5) },
      { visibilityMs: 30_000, timeoutMs: 60_000, finishedAt: T0 + 3 },
    );
    await insert(d, [job]);
    const key = `${d.prefix}:{exact}:j:${job.job.id}`;
    const before = unpackHot((await d.redis.hget(key, '@h'))!);
    await claim(d, ['exact'], 1, T0 + 100, 'worker|with|bars');
    expect(unpackHot((await d.redis.hget(key, '@h'))!)).toEqual({
      ...before,
      state: 'active',
      attempt: '3',
      started_at: iso(T0 + 100),
      '@claimVisibilityMs': '30000',
      '@visibleUntil': String(T0 + 100 + 30_000),
      '@timeoutAt': String(T0 + 100 + 60_000),
      worker_id: 'worker|with|bars',
    });
    expect(before).toMatchObject({
      type: 'test.noop',
      priority: '7',
      enqueued_at: iso(T0 + 5),
      '@visibilityMs': '30000',
      '@timeoutMs': '60000',
      '@finishedAt': String(T0 + 3),
    });
  });

  it('inserts plain available jobs the short way exactly as the general way inserts them', async () => {
    const d = driver();
    const fields = (i: number): Partial<Job> => ({ priority: i % 3, args: [i, 'a|b'], meta: { i }, tags: i ? ['t'] : undefined }) as Partial<Job>;
    // the short way: only plain available jobs; the general way: the same jobs plus one it alone handles
    await insert(
      d,
      [0, 1, 2].map((i) => storedJob({ ...fields(i), queue: 'ins-short' })),
    );
    await insert(d, [
      ...[0, 1, 2].map((i) => storedJob({ ...fields(i), queue: 'ins-general' })),
      storedJob({ queue: 'ins-other', state: 'scheduled', scheduled_at: iso(T0 + 60_000) }, { dueAt: T0 + 60_000 }),
    ]);
    const snapshot = async (q: string) => {
      const k = (s: string) => `${d.prefix}:{${q}}:${s}`;
      const ids = await d.redis.zrange(k('avail'), 0, -1);
      const jobs = await Promise.all(
        ids.map(async (id) => {
          const { '@e': e, ...rest } = await d.redis.hgetall(k(`j:${id}`));
          const { id: _id, queue, ...sealed } = JSON.parse(e!) as Record<string, unknown>;
          return { ...rest, sealed, queue, directory: await d.redis.hget(`${d.prefix}:ids`, id) };
        }),
      );
      return {
        scores: (await d.redis.zrange(k('avail'), 0, -1, 'WITHSCORES')).filter((_, i) => i % 2 === 1),
        counts: await d.redis.hgetall(k('counts')),
        seq: await d.redis.get(k('seq')),
        meta: await d.redis.hgetall(k('meta')),
        jobs: jobs.map((j) => ({ ...j, queue: j.queue === q, directory: j.directory === q })),
      };
    };
    const short = await snapshot('ins-short');
    expect(short.jobs).toHaveLength(3);
    expect({ ...short, meta: { ...short.meta, name: '' } }).toEqual({
      ...(await snapshot('ins-general')),
      meta: { ...(await snapshot('ins-general')).meta, name: '' },
    });
    expect(await d.redis.sismember(`${d.prefix}:queues`, 'ins-short')).toBe(1);
    expect(await indexViolations(d)).toEqual([]);
    // a second insert goes on with the queue's FIFO sequence; an id given twice, or stored already, takes the
    // general way and aborts as it always did
    await insert(d, [storedJob({ queue: 'ins-short' })]);
    expect(await d.redis.get(`${d.prefix}:{ins-short}:seq`)).toBe('4');
    const again = storedJob({ queue: 'ins-short' });
    await insert(d, [again]);
    expect(await insert(d, [again])).toMatchObject({ ok: false, index: 0, reason: 'duplicate_id' });
    const twice = storedJob({ queue: 'ins-short' });
    expect(await insert(d, [twice, twice])).toMatchObject({ ok: false, index: 1, reason: 'duplicate_id' });
    expect(await d.jobCounts({ queue: 'ins-short' })).toMatchObject({ available: 5 });
    expect(await indexViolations(d)).toEqual([]);
  });

  it('claims one queue the short way exactly as the general way claims it', async () => {
    const d = driver();
    // the same jobs in two queues: one claimed alone (the short way, before the libraries are set up), the
    // other together with an empty queue (the general way)
    const shapes: Array<[Partial<Job>, Partial<StoredJob['x']>]> = [
      [{ priority: 5 }, {}],
      [{ attempt: 1, next_attempt_at: iso(T0 - 10) } as Partial<Job>, { progress: { progress: 0.5, message: 'half', data: null, updated_at: iso(T0 - 5) } }],
      [{ meta: { m: 'x|y' }, args: [1, { a: 2 }] }, { timeoutMs: undefined }],
      [{ priority: -3, tags: ['t'] }, { visibilityMs: 1_000 }],
    ];
    for (const queue of ['short', 'general'])
      await insert(
        d,
        shapes.map(([job, x]) => storedJob({ ...job, queue }, x)),
      );
    const short = (await claim(d, ['short'], 10, T0 + 50)).jobs;
    const general = (await claim(d, ['general', 'nothing-here'], 10, T0 + 50)).jobs;
    const comparable = (jobs: Job[]) => jobs.map(({ id: _id, queue: _queue, ...rest }) => rest);
    expect(short).toHaveLength(4);
    expect(comparable(short)).toEqual(comparable(general));
    const stored = async (q: string, jobs: Job[]) =>
      Promise.all(
        jobs.map(async (j) => {
          const { '@e': _e, '@h': h, ...own } = await d.redis.hgetall(`${d.prefix}:{${q}}:j:${j.id}`);
          return { own, hot: unpackHot(h!) };
        }),
      );
    expect(await stored('short', short)).toEqual(await stored('general', general));
    expect(await d.jobCounts({ queue: 'short' })).toEqual(await d.jobCounts({ queue: 'general' }));
    expect(await indexViolations(d)).toEqual([]);
    // a job with an expiry among the first ones sends the claim the general way, which handles it
    await insert(d, [storedJob({ queue: 'short' }), storedJob({ queue: 'short' }, { expiresAt: T0 + 10 })]);
    const after = await claim(d, ['short'], 10, T0 + 50);
    expect(after.jobs).toHaveLength(1);
    expect(after.expired).toHaveLength(1);
    expect(await indexViolations(d)).toEqual([]);
  });

  it('keeps each active index a skiplist with an anchor no listing, deadline scan or count shows', async () => {
    const d = driver();
    const key = `${d.prefix}:{k}:active`;
    // one claimed job: a sorted set this small would be a listpack without the anchor
    await insert(d, [storedJob({ queue: 'k' })]);
    const [job] = (await claim(d, ['k'], 1)).jobs;
    expect(await d.redis.call('OBJECT', 'ENCODING', key)).toBe('skiplist');
    expect(await d.redis.zscore(key, ACTIVE_ANCHOR)).toBe('inf');
    // an active job inserted as such (no deadline: +inf, like the anchor) goes through the insert's own ZADD
    await insert(d, [storedJob({ queue: 'k2', state: 'active', attempt: 1 })]);
    expect(await d.redis.call('OBJECT', 'ENCODING', `${d.prefix}:{k2}:active`)).toBe('skiplist');
    expect(await indexViolations(d)).toEqual([]);
    const listed = await d.jobList({ state: 'active', limit: 10, offset: 0 });
    expect(listed.jobs.map((j) => j.queue).sort()).toEqual(['k', 'k2']);
    expect((await d.jobList({ queue: 'k', limit: 10, offset: 0 })).jobs.map((j) => j.id)).toEqual([job!.id]);
    // past every deadline: the claimed job is overdue; the anchor and the job without a deadline are not
    expect((await d.jobListOverdue({ now: Number.MAX_SAFE_INTEGER, limit: 10 })).map((s) => s.job.id)).toEqual([job!.id]);
    expect((await d.jobCounts({ queue: 'k' })).active).toBe(1);
  });

  it('sends the commands issued in one tick in one socket write', async () => {
    const d = driver();
    const job = storedJob();
    await insert(d, [job]);
    // Load the scripts, so the calls below are EVALSHAs only.
    await d.jobGet(job.job.id);
    await d.queueList();
    const stream = (d.redis as unknown as { stream: { _write: unknown; _writev: unknown } }).stream;
    const writes: number[] = [];
    const count = (method: '_write' | '_writev') => {
      const original = stream[method] as (...args: unknown[]) => unknown;
      stream[method] = function (this: unknown, ...args: unknown[]) {
        writes.push(method === '_writev' ? (args[0] as unknown[]).length : 1);
        return original.apply(this, args);
      };
    };
    count('_write');
    count('_writev');
    const got = await Promise.all([d.jobGet(job.job.id), d.jobGet(job.job.id), d.jobGet('missing'), d.queueList()]);
    expect(got[0]!.job.id).toBe(job.job.id);
    expect(got[2]).toBeNull();
    // Four commands, one write of four chunks (without the cork: four writes).
    expect(writes).toEqual([4]);
  });

  it('sends a full chunk of concurrent inserts at once, ahead of the rest of the tick', async () => {
    const d = driver();
    await insert(d, [storedJob()]); // loads the script
    const stream = (d.redis as unknown as { stream: { _write: unknown; _writev: unknown } }).stream;
    const writes: number[] = [];
    for (const method of ['_write', '_writev'] as const) {
      const original = stream[method] as (...args: unknown[]) => unknown;
      stream[method] = function (this: unknown, ...args: unknown[]) {
        writes.push(method === '_writev' ? (args[0] as unknown[]).length : 1);
        return original.apply(this, args);
      };
    }
    // 30 producers: a chunk of 25 leaves at once, the last 5 at the end of the tick (held together, one write).
    const jobs = Array.from({ length: 30 }, () => storedJob());
    const results = await Promise.all(jobs.map((job) => insert(d, [job])));
    expect(results.every((r) => r.ok)).toBe(true);
    expect(writes).toEqual([1, 1]);
    expect((await Promise.all(jobs.map((job) => d.jobGet(job.job.id)))).every((got) => got?.job.state === 'available')).toBe(true);
    expect(await indexViolations(d)).toEqual([]);
  });

  it('writes a claim and a batch of ACKs at once, not at the end of the tick', async () => {
    const d = driver();
    const jobs = [storedJob(), storedJob(), storedJob()];
    await insert(d, jobs);
    const ack = (claimed: readonly Job[]) =>
      d.jobCompleteMany({ jobs: claimed.map((job) => ({ id: job.id, attempt: 1, workerId: 'w1' })), now: T0 + 2, nowIso: iso(T0 + 2), returning: 'summary' });
    // Load the scripts first (a SCRIPT LOAD is written at once anyway).
    const other = storedJob({ queue: 'other' });
    await insert(d, [other]);
    await ack((await claim(d, ['other'], 1, T0 + 1)).jobs);
    await d.jobGet(jobs[0]!.job.id);
    const stream = (d.redis as unknown as { stream: { _write: unknown; _writev: unknown } }).stream;
    const writes: string[] = [];
    for (const method of ['_write', '_writev'] as const) {
      const original = stream[method] as (...args: unknown[]) => unknown;
      stream[method] = function (this: unknown, ...args: unknown[]) {
        writes.push(method);
        return original.apply(this, args);
      };
    }
    // A worker asks for its next batch, then keeps working in the same tick: the claim must already be on
    // its way to Redis (corked, it would leave only once this tick's work is done).
    const claiming = claim(d, [jobs[0]!.job.queue], 3, T0 + 1);
    expect(writes.length).toBe(1);
    void d.jobGet(jobs[0]!.job.id); // a one-job call of the same tick is still held for the tick's one write
    expect(writes.length).toBe(1);
    const claimed = (await claiming).jobs;
    expect(claimed).toHaveLength(3);
    writes.length = 0;
    const acking = ack(claimed);
    expect(writes.length).toBe(1);
    expect((await acking).map((r) => r.ok)).toEqual([true, true, true]);
  });

  it('reports connection failures as backend_unavailable', async () => {
    const d = new RedisDriver({
      url: 'redis://127.0.0.1:1',
      prefix: uniquePrefix(),
      checkMemoryPolicy: false,
      connection: { maxRetriesPerRequest: 0, retryStrategy: () => null },
    });
    await expect(d.jobGet('x')).rejects.toMatchObject({ code: 'backend_unavailable', status: 503 });
    await d.close();
    expect(REDIS_URL).toBeTruthy();
  });
});
