/**
 * The hot-state layout, measured (issue 4): what claim and ACK would cost if a job's mutable fields lived
 * outside its hash, so that a batch is a few variadic commands instead of per-job HGETALL/HSET/HDEL. Runs, on
 * the same Redis, N jobs through (1) the real driver's claim and batched-ACK scripts (as `bench:breakdown`
 * does) and (2) a prototype layout whose scripts are defined below: per queue `P:{q}:env` (id -> the sealed
 * envelope JSON, immutable), `P:{q}:hot` (id -> 'state|attempt|worker_id|visibleUntil|started_at|completed_at'),
 * `P:{q}:avail`, `P:{q}:active`, `P:{q}:fin` (zsets), `P:{q}:counts` and `P:{q}:res` (hashes). The prototype
 * runs once per claim-reply format: a flat Lua array (env, hot, env, hot, ...), one `cjson.encode`d array,
 * and two concatenated strings (the env texts joined into one JSON array, the hot strings joined by '\n').
 * Claim and ACK are measured apart: Redis CPU (INFO cpu), script time (commandstats `evalsha` usec) and Node
 * CPU per job, medians and ranges over alternating rounds. The prototype's guards are checked first (a job
 * not 'available' is never claimed, a second ACK of a batch fails every op, a wrong worker or attempt fails);
 * the bench aborts when one does not hold. It is a prototype, not a driver: no promotion of due jobs, no
 * expiry, one visibility timeout for all jobs, no events. BENCH_CALLGRIND=1 runs it all against a Redis of its
 * own under valgrind's callgrind (as `bench:instructions`) and adds Redis instructions per job, which repeat to a
 * few % where CPU time swings by tens of %; CPU figures are then meaningless, and N defaults to 2000.
 *
 * Usage: pnpm bench:layouts  (env: REDIS_URL, BENCH_JOBS=20000, BENCH_BATCH=50, BENCH_ROUNDS=3, BENCH_CALLGRIND,
 * BENCH_PORT=6399)
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { ojskitSystem } from './ojskit-system.js';
import { measure, table, type Sample } from './measure.js';
import { benchAck } from './ack-op.js';
import { startCallgrindRedis } from './callgrind.js';

const callgrind = process.env.BENCH_CALLGRIND === '1' ? await startCallgrindRedis(Number(process.env.BENCH_PORT ?? 6399)) : null;
const url = callgrind?.url ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const N = Number(process.env.BENCH_JOBS ?? (callgrind ? 2_000 : 20_000));
const BATCH = Number(process.env.BENCH_BATCH ?? 50);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const VISIBILITY_MS = 30_000;
const run = randomUUID().slice(0, 8);
const admin = new Redis(url);
// the prototype's own connection, so that its calls queue behind nothing of the driver's
const proto = new Redis(url);
const ojskit = ojskitSystem(url, `ojslayouts:${run}`);
const driver = ojskit.driver;

// ---- The prototype's scripts ----------------------------------------------------------------------------

/*
 * Claim. ARGV: P, queue, limit, workerId, now, nowIso, visibilityMs, format ('flat' | 'json' | 'concat').
 * Pops up to `limit` ids, reads their envelopes and hot strings with one HMGET each, and claims those whose hot
 * state is 'available' (any other is refused and dropped: it is not the avail index's to hold). The meta HGET
 * and the empty ZRANGEBYSCORE of `due` stand for the real claim's per-call pause check and promotion.
 */
const CLAIM_LUA = `
local P, q, limit, worker, now, nowIso, vis, fmt = ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4], tonumber(ARGV[5]), ARGV[6], tonumber(ARGV[7]), ARGV[8]
local base = P .. ':{' .. q .. '}:'
local envs, hots = {}, {}
local function reply()
  if fmt == 'flat' then
    local out = {}
    for k = 1, #envs do
      out[2 * k - 1] = envs[k]
      out[2 * k] = hots[k]
    end
    return out
  elseif fmt == 'json' then
    return cjson.encode({ envs, hots })
  end
  -- the env texts are JSON already: joined, they are one JSON array that Node parses in one call
  return { '[' .. table.concat(envs, ',') .. ']', table.concat(hots, '\\n') }
end
if redis.call('HGET', base .. 'meta', 'paused') == '1' then return reply() end
redis.call('ZRANGEBYSCORE', base .. 'due', '-inf', now, 'LIMIT', 0, 1000)
local avail = base .. 'avail'
local ids = redis.call('ZRANGE', avail, 0, limit - 1)
if #ids == 0 then return reply() end
redis.call('ZREMRANGEBYRANK', avail, 0, #ids - 1)
local envAll = redis.call('HMGET', base .. 'env', unpack(ids))
local hotAll = redis.call('HMGET', base .. 'hot', unpack(ids))
local untilText = string.format('%d', now + vis)
-- the tail every claimed hot string of this call shares, and the next attempt's text per stored attempt
local tail = '|' .. worker .. '|' .. untilText .. '|' .. nowIso .. '|'
local nextAttempt = {}
local sets, zadds = {}, {}
local n = 0
for k = 1, #ids do
  local h = hotAll[k]
  if h and envAll[k] then
    local state, attempt = string.match(h, '^([^|]*)|([^|]*)|')
    if state == 'available' then
      local a = nextAttempt[attempt]
      if not a then
        a = string.format('%d', (tonumber(attempt) or 0) + 1)
        nextAttempt[attempt] = a
      end
      local hot = 'active|' .. a .. tail
      n = n + 1
      sets[2 * n - 1] = ids[k]
      sets[2 * n] = hot
      zadds[2 * n - 1] = untilText
      zadds[2 * n] = ids[k]
      envs[n] = envAll[k]
      hots[n] = hot
    end
  end
end
if n > 0 then
  redis.call('HSET', base .. 'hot', unpack(sets))
  redis.call('ZADD', base .. 'active', unpack(zadds))
  local counts = base .. 'counts'
  redis.call('HINCRBY', counts, 'available', -n)
  redis.call('HINCRBY', counts, 'active', n)
end
return reply()
`;

/*
 * ACK of a batch. ARGV: P, queue, now, nowIso, then per op: id, expected attempt, expected workerId, result
 * JSON ('' when null). Per op the real ACK's guard: state is 'active', the attempt and the worker are the
 * expected ones (an id twice in one batch wins once). Returns one flag per op (1 completed, 0 refused).
 */
const ACK_LUA = `
local P, q, now, nowIso = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local base = P .. ':{' .. q .. '}:'
local n = (#ARGV - 4) / 4
local ids = {}
for k = 1, n do ids[k] = ARGV[4 * k + 1] end
local hotAll = redis.call('HMGET', base .. 'hot', unpack(ids))
local flags, sets, zrem, zfin, res, won = {}, {}, {}, {}, {}, {}
local w = 0
for k = 1, n do
  local i = 4 * k
  local h = hotAll[k]
  flags[k] = 0
  if h and not won[ids[k]] then
    local state, attempt, worker, _, started = string.match(h, '^([^|]*)|([^|]*)|([^|]*)|([^|]*)|([^|]*)|')
    if state == 'active' and attempt == ARGV[i + 2] and worker == ARGV[i + 3] then
      flags[k] = 1
      won[ids[k]] = true
      w = w + 1
      sets[2 * w - 1] = ids[k]
      sets[2 * w] = 'completed|' .. attempt .. '|||' .. started .. '|' .. nowIso
      zrem[w] = ids[k]
      zfin[2 * w - 1] = now
      zfin[2 * w] = ids[k]
      if ARGV[i + 4] ~= '' then
        res[#res + 1] = ids[k]
        res[#res + 1] = ARGV[i + 4]
      end
    end
  end
end
if w > 0 then
  redis.call('HSET', base .. 'hot', unpack(sets))
  redis.call('ZREM', base .. 'active', unpack(zrem))
  redis.call('ZADD', base .. 'fin', unpack(zfin))
  if #res > 0 then redis.call('HSET', base .. 'res', unpack(res)) end
  local counts = base .. 'counts'
  redis.call('HINCRBY', counts, 'active', -w)
  redis.call('HINCRBY', counts, 'completed', w)
end
return flags
`;

type Format = 'flat' | 'json' | 'concat';
const FORMATS: readonly Format[] = ['flat', 'json', 'concat'];
interface ProtoJob {
  [field: string]: unknown;
  id: string;
  state: string;
  attempt: number;
  worker_id: string;
  started_at: string;
  visibleUntil: number;
}

let claimSha = '';
let ackSha = '';

/** Inserts `count` available jobs under P:{queue} (one pipeline of variadic writes; not measured). */
async function protoInsert(prefix: string, queue: string, count: number, envelope: (id: string, i: number) => string): Promise<string[]> {
  const base = `${prefix}:{${queue}}:`;
  const ids: string[] = [];
  for (let i = 0; i < count; i += 1000) {
    const env: string[] = [];
    const hot: string[] = [];
    const avail: Array<string | number> = [];
    for (let k = i; k < Math.min(count, i + 1000); k++) {
      const id = randomUUID();
      ids.push(id);
      env.push(id, envelope(id, k));
      hot.push(id, 'available|0||||');
      avail.push(k, id);
    }
    await proto
      .multi()
      .hset(`${base}env`, ...env)
      .hset(`${base}hot`, ...hot)
      .zadd(`${base}avail`, ...avail)
      .hincrby(`${base}counts`, 'available', env.length / 2)
      .exec();
  }
  return ids;
}

/** Decodes a hot string into the job object its envelope parsed into (what the driver's decodeJob yields). */
function withHot(job: Record<string, unknown>, hot: string): ProtoJob {
  const f = hot.split('|');
  job.state = f[0];
  job.attempt = Number(f[1]);
  job.worker_id = f[2];
  job.visibleUntil = Number(f[3]);
  job.started_at = f[4];
  return job as ProtoJob;
}

async function protoClaim(prefix: string, queue: string, workerId: string, format: Format, limit = BATCH): Promise<ProtoJob[]> {
  const now = Date.now();
  const reply = await proto.evalsha(claimSha, 0, prefix, queue, limit, workerId, now, new Date(now).toISOString(), VISIBILITY_MS, format);
  const jobs: ProtoJob[] = [];
  if (format === 'flat') {
    const flat = reply as string[];
    for (let k = 0; k < flat.length; k += 2) jobs.push(withHot(JSON.parse(flat[k]!), flat[k + 1]!));
  } else if (format === 'json') {
    const [envs, hots] = JSON.parse(reply as string) as [string[] | Record<string, never>, string[] | Record<string, never>];
    // cjson encodes an empty table as {}
    if (Array.isArray(envs) && Array.isArray(hots)) for (let k = 0; k < envs.length; k++) jobs.push(withHot(JSON.parse(envs[k]!), hots[k]!));
  } else {
    const [envs, hots] = reply as [string, string];
    const parsed = JSON.parse(envs) as Array<Record<string, unknown>>;
    const hot = hots.split('\n');
    for (let k = 0; k < parsed.length; k++) jobs.push(withHot(parsed[k]!, hot[k]!));
  }
  return jobs;
}

async function protoAck(
  prefix: string,
  queue: string,
  ops: ReadonlyArray<{ id: string; attempt: number; workerId: string; result?: unknown }>,
): Promise<number[]> {
  const now = Date.now();
  const args: Array<string | number> = [prefix, queue, now, new Date(now).toISOString()];
  for (const op of ops) args.push(op.id, op.attempt, op.workerId, op.result === undefined || op.result === null ? '' : JSON.stringify(op.result));
  return (await proto.evalsha(ackSha, 0, ...args)) as number[];
}

async function dropProto(prefix: string, queue: string): Promise<void> {
  const base = `${prefix}:{${queue}}:`;
  await proto.del(...['env', 'hot', 'avail', 'due', 'active', 'fin', 'counts', 'res', 'meta'].map((s) => base + s));
}

function check(ok: boolean, what: string): void {
  if (!ok) throw new Error(`hot-state prototype self-check failed: ${what}`);
}

/** The prototype's guards, on a queue of its own; throws (and so aborts the bench) when one does not hold. */
async function selfCheck(envelope: (id: string, i: number) => string): Promise<void> {
  const prefix = `ojslayouts:${run}:check`;
  const q = 'check';
  for (const format of FORMATS) {
    const ids = await protoInsert(prefix, q, 120, envelope);
    // a job in avail whose hot state is not 'available' (a stale index entry) must be refused
    await proto.hset(`${prefix}:{${q}}:hot`, ids[3]!, 'active|1|other|0|x|');
    const seen = new Set<string>();
    const batches: ProtoJob[][] = [];
    for (;;) {
      const jobs = await protoClaim(prefix, q, 'w1', format, 50);
      if (jobs.length === 0) break;
      for (const job of jobs) {
        check(!seen.has(job.id), `${format}: job claimed twice`);
        seen.add(job.id);
        check(job.state === 'active' && job.attempt === 1 && job.worker_id === 'w1', `${format}: claimed job's hot state`);
        check(typeof job.type === 'string', `${format}: envelope decoded`);
      }
      batches.push(jobs);
    }
    check(seen.size === 119 && !seen.has(ids[3]!), `${format}: claimed ${seen.size} of 119, or the non-available job`);
    const first = batches[0]!.map((j) => ({ id: j.id, attempt: j.attempt, workerId: 'w1' }));
    check(
      (await protoAck(prefix, q, first)).every((f) => f === 1),
      `${format}: first ACK`,
    );
    check(
      (await protoAck(prefix, q, first)).every((f) => f === 0),
      `${format}: a second ACK of a batch succeeded`,
    );
    const second = batches[1]!;
    const wrong = await protoAck(prefix, q, [
      { id: second[0]!.id, attempt: 1, workerId: 'w2' },
      { id: second[1]!.id, attempt: 2, workerId: 'w1' },
      { id: second[2]!.id, attempt: 1, workerId: 'w1', result: { ok: true } },
      { id: second[2]!.id, attempt: 1, workerId: 'w1' },
      { id: 'no-such-job', attempt: 1, workerId: 'w1' },
    ]);
    check(wrong.join() === '0,0,1,0,0', `${format}: guards (wrong worker, wrong attempt, twice in a batch, unknown id) gave ${wrong.join()}`);
    check((await proto.hget(`${prefix}:{${q}}:res`, second[2]!.id)) === '{"ok":true}', `${format}: result stored`);
    const counts = await proto.hgetall(`${prefix}:{${q}}:counts`);
    // the first claim popped the refused job, so its batch holds 49 jobs: 49 + 1 completed, 119 - 50 active
    check(counts.completed === '50' && counts.active === '69', `${format}: counts ${JSON.stringify(counts)}`);
    await dropProto(prefix, q);
  }
}

// ---- Measurement ----------------------------------------------------------------------------------------

async function evalshaUsec(): Promise<number> {
  const info = await admin.info('commandstats');
  return Number(/^cmdstat_evalsha:calls=\d+,usec=(\d+)/m.exec(info)?.[1] ?? 0);
}

interface Phase extends Sample {
  scriptUs: number;
  /** Redis instructions (callgrind only, else NaN). */
  instructions: number;
}

async function probe(fn: () => Promise<void>): Promise<Phase> {
  const before = await evalshaUsec();
  let sample: Sample | undefined;
  const instructions = callgrind ? await callgrind.count('phase', async () => void (sample = await measure(admin, fn))) : NaN;
  sample ??= await measure(admin, fn);
  return { ...sample, scriptUs: (await evalshaUsec()) - before, instructions };
}

type Variant = 'current' | `hot-state (${Format})`;
const VARIANTS: readonly Variant[] = ['current', ...FORMATS.map((f) => `hot-state (${f})` as const)];
const results = new Map<string, Phase[]>();
const record = (variant: Variant, phase: 'claim' | 'ACK', p: Phase) => {
  const key = `${variant}\t${phase}`;
  results.set(key, [...(results.get(key) ?? []), p]);
};

async function runCurrent(round: number): Promise<Array<Record<string, unknown>>> {
  const queue = `cur-${round}`;
  await ojskit.bulk(N, queue);
  const claimed: Array<{ id: string; attempt: number }> = [];
  const jobs: Array<Record<string, unknown>> = [];
  record(
    'current',
    'claim',
    await probe(async () => {
      for (let i = 0; i < N; i += BATCH) {
        const now = Date.now();
        const result = await driver.jobClaim({ queues: [queue], limit: BATCH, workerId: 'bench', now, nowIso: new Date(now).toISOString() });
        for (const job of result.jobs) {
          claimed.push({ id: job.id, attempt: job.attempt });
          if (jobs.length === 0) jobs.push(job as unknown as Record<string, unknown>);
        }
      }
    }),
  );
  check(claimed.length === N, `current claimed ${claimed.length} of ${N}`);
  let failed = 0;
  record(
    'current',
    'ACK',
    await probe(async () => {
      for (let i = 0; i < claimed.length; i += BATCH) {
        const now = Date.now();
        const nowIso = new Date(now).toISOString();
        const out = await benchAck(driver, claimed.slice(i, i + BATCH), 'bench', now, nowIso);
        for (const r of out) if (!r.ok) failed++;
      }
    }),
  );
  check(failed === 0, `current: ${failed} ACKs failed`);
  await ojskit.clear();
  return jobs;
}

async function runProto(format: Format, round: number, envelope: (id: string, i: number) => string): Promise<void> {
  const prefix = `ojslayouts:${run}:hot`;
  const queue = `${format}-${round}`;
  await protoInsert(prefix, queue, N, envelope);
  const claimed: ProtoJob[] = [];
  record(
    `hot-state (${format})`,
    'claim',
    await probe(async () => {
      for (let i = 0; i < N; i += BATCH) for (const job of await protoClaim(prefix, queue, 'bench', format)) claimed.push(job);
    }),
  );
  check(claimed.length === N && new Set(claimed.map((j) => j.id)).size === N, `${format}: claimed ${claimed.length} of ${N}, or a job twice`);
  let failed = 0;
  record(
    `hot-state (${format})`,
    'ACK',
    await probe(async () => {
      for (let i = 0; i < claimed.length; i += BATCH) {
        const flags = await protoAck(
          prefix,
          queue,
          claimed.slice(i, i + BATCH).map((job) => ({ id: job.id, attempt: job.attempt, workerId: 'bench', result: null })),
        );
        for (const f of flags) if (f !== 1) failed++;
      }
    }),
  );
  check(failed === 0, `${format}: ${failed} ACKs failed`);
  // outside the measurement: a second ACK of a batch fails every op
  const again = await protoAck(
    prefix,
    queue,
    claimed.slice(0, BATCH).map((job) => ({ id: job.id, attempt: job.attempt, workerId: 'bench' })),
  );
  check(
    again.every((f) => f === 0),
    `${format}: a second ACK of a batch succeeded`,
  );
  await dropProto(prefix, queue);
}

try {
  await main();
} finally {
  await callgrind?.stop();
}

async function main(): Promise<void> {
  // A real claimed job sets the envelope's size: its JSON without the fields the hot string holds.
  await ojskit.bulk(1_000, 'warm');
  await ojskit.process(1_000, 'warm');
  const sample = (await runCurrent(-1))[0]!;
  const { state: _s, attempt: _a, worker_id: _w, started_at: _st, ...sealed } = sample;
  const envelope = (id: string, i: number) => JSON.stringify({ ...sealed, id, args: [i] });
  claimSha = (await proto.script('LOAD', CLAIM_LUA)) as string;
  ackSha = (await proto.script('LOAD', ACK_LUA)) as string;
  await selfCheck(envelope);
  results.clear();
  console.log(`claimed job as JSON: ${JSON.stringify(sample).length} bytes; prototype envelope text: ${envelope(randomUUID(), 0).length} bytes`);

  for (let r = 0; r < ROUNDS; r++) {
    // alternate: each round starts one variant further
    for (let v = 0; v < VARIANTS.length; v++) {
      const variant = VARIANTS[(r + v) % VARIANTS.length]!;
      if (variant === 'current') await runCurrent(r);
      else await runProto(variant.slice('hot-state ('.length, -1) as Format, r, envelope);
    }
    console.log(`round ${r + 1}/${ROUNDS} done`);
  }

  const median = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
  };
  const cell = (xs: number[]) => `${median(xs).toFixed(1)} (${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)})`;
  type Metric = 'redisCpuUs' | 'scriptUs' | 'nodeCpuUs' | 'instructions';
  const perJob = (variant: Variant, phase: 'claim' | 'ACK' | 'total', metric: Metric): number[] => {
    const get = (p: 'claim' | 'ACK') => results.get(`${variant}\t${p}`)!.map((x) => x[metric] / N);
    if (phase !== 'total') return get(phase);
    const c = get('claim');
    const a = get('ACK');
    return c.map((x, i) => x + a[i]!);
  };
  const rows: string[][] = [];
  for (const variant of VARIANTS) {
    for (const phase of ['claim', 'ACK', 'total'] as const) {
      const ratio = (metric: Metric) =>
        variant === 'current' ? '' : `${(median(perJob('current', phase, metric)) / median(perJob(variant, phase, metric))).toFixed(2)}×`;
      rows.push([
        variant,
        phase,
        cell(perJob(variant, phase, 'redisCpuUs')),
        cell(perJob(variant, phase, 'scriptUs')),
        cell(perJob(variant, phase, 'nodeCpuUs')),
        variant === 'current' ? '—' : `${ratio('redisCpuUs')} / ${ratio('scriptUs')} / ${ratio('nodeCpuUs')}`,
      ]);
    }
  }
  console.log(`\n${N} jobs, batches of ${BATCH}, ${ROUNDS} rounds; µs per job, median (range)\n`);
  console.log(table(['layout', 'phase', 'Redis CPU', 'script time', 'Node CPU', 'current / this: Redis / script / Node'], rows));
  if (callgrind) {
    const kRows: string[][] = [];
    for (const variant of VARIANTS) {
      for (const phase of ['claim', 'ACK', 'total'] as const) {
        const k = perJob(variant, phase, 'instructions').map((x) => x / 1000);
        kRows.push([
          variant,
          phase,
          cell(k),
          variant === 'current' ? '—' : `${(median(perJob('current', phase, 'instructions')) / median(perJob(variant, phase, 'instructions'))).toFixed(2)}×`,
        ]);
      }
    }
    console.log(`\nRedis instructions per job (thousands; callgrind, so the CPU figures above are not comparable with a plain run)\n`);
    console.log(table(['layout', 'phase', 'Redis instructions (k)', 'current / this'], kRows));
  }

  await ojskit.close();
  await admin.quit();
  await proto.quit();
}
