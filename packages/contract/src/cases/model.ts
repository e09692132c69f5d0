/**
 * Model-based property: random short operation sequences run against the API and against the reference
 * model (whose legality comes from `TRANSITIONS`); job states, attempts and operation outcomes must agree
 * after every step. Runs `OJSKIT_CONTRACT_MODEL_RUNS` sequences (default 1000), split over independent streams
 * that run together.
 */
import fc from 'fast-check';
import { newId } from '@ojskit/core/formats';
import type { Job, JobState } from '@ojskit/core';
import { STATE_ROLES, type Trigger } from '@ojskit/core/lifecycle';
import { CaseContext, token } from '../context.js';
import type { Suite } from '../harness.js';
import { outcomeOf } from '../support/errors.js';
import { canFire, ReferenceModel, type Expected } from '../model/reference-model.js';

type Op =
  | {
      kind: 'enqueue';
      mode: 'now' | 'scheduled' | 'pending';
      delayS: number;
      maxAttempts: number;
      deadLetter: boolean;
      expiresS: number | null;
      timeoutS: number | null;
    }
  | { kind: 'fetch'; count: number; visibilityS: number }
  | { kind: 'ack' | 'cancel' | 'activate' | 'heartbeat' | 'dlq-retry'; job: number; focus: boolean }
  | { kind: 'nack'; job: number; focus: boolean; mode: 'retryable' | 'fatal' | 'requeue' }
  | { kind: 'advance'; halves: number };

const job = fc.nat({ max: 1_000 });
/** Mostly aim job operations at jobs the operation is legal for, so sequences get deep; sometimes at any job. */
const focus = fc.constantFrom(true, true, true, false);

/** `value` with weight `some`, else null with weight `none`. */
function sometimes(value: fc.Arbitrary<number>, some: number, none: number): fc.Arbitrary<number | null> {
  return fc.oneof({ weight: some, arbitrary: value }, { weight: none, arbitrary: fc.constant(null) });
}

const enqueueArbitrary: fc.Arbitrary<Op> = fc.record({
  kind: fc.constant('enqueue' as const),
  mode: fc.constantFrom('now' as const, 'now' as const, 'scheduled' as const, 'pending' as const),
  delayS: fc.integer({ min: 1, max: 20 }),
  maxAttempts: fc.constantFrom(0, 1, 2, 3, 3, 3),
  deadLetter: fc.boolean(),
  expiresS: sometimes(fc.integer({ min: 1, max: 60 }), 1, 2),
  timeoutS: sometimes(fc.integer({ min: 1, max: 10 }), 1, 3),
});

const opArbitrary: fc.Arbitrary<Op> = fc.oneof(
  { weight: 3, arbitrary: enqueueArbitrary },
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('fetch' as const),
      count: fc.integer({ min: 1, max: 3 }),
      // Short reservations exercise reclaims; long ones (over the 30 s worker-death threshold) let dead workers matter.
      visibilityS: fc.oneof({ weight: 3, arbitrary: fc.integer({ min: 1, max: 10 }) }, { weight: 1, arbitrary: fc.constantFrom(60, 120) }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('ack' as const), job, focus }) },
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('nack' as const),
      job,
      focus,
      mode: fc.constantFrom('retryable' as const, 'retryable' as const, 'fatal' as const, 'requeue' as const),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('cancel' as const), job, focus }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('activate' as const), job, focus }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('heartbeat' as const), job, focus }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('dlq-retry' as const), job, focus }) },
  // Advances are 500·k + 1 ms: every deadline the model computes is a multiple of 500 ms after the step that
  // set it, so with fewer than 500 advances no deadline ever lands exactly on "now" (no boundary ambiguity).
  // Mostly short steps (retry delays and reservations are seconds long), sometimes long ones (worker death, expiry).
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('advance' as const),
      halves: fc.oneof({ weight: 4, arbitrary: fc.integer({ min: 0, max: 12 }) }, { weight: 1, arbitrary: fc.integer({ min: 12, max: 80 }) }),
    }),
  },
);

/**
 * A sequence: 1–3 enqueues first (so job operations have targets from the start), then 8–22 operations.
 * `noBias` keeps fast-check from favouring runs of one operation.
 */
const sequenceArbitrary: fc.Arbitrary<Op[]> = fc
  .tuple(fc.array(enqueueArbitrary, { minLength: 1, maxLength: 3 }), fc.noBias(fc.array(opArbitrary, { minLength: 8, maxLength: 22, size: 'max' })))
  .map(([setup, ops]) => [...setup, ...ops]);

/**
 * The state the model has for a job the backend holds: with a dispatch log a delivered job is `pending` where
 * the model (the protocol's table) has it `available`. It is told from a job staged by `pending: true` by its
 * `enqueued_at`, which only entering `available` stamps.
 */
function modelState(t: CaseContext, job: Job): JobState {
  return t.dispatch.active && job.state === t.dispatch.ready && job.enqueued_at !== undefined ? STATE_ROLES.promoted : job.state;
}

/** Runs one sequence on a fresh queue of the shared subject; throws with the step log on the first disagreement. */
async function runSequence(t: CaseContext, ops: Op[]): Promise<void> {
  const run = token();
  const queue = `model-${run}`;
  const model = new ReferenceModel();
  const log: string[] = [];
  let fetches = 0;

  const fail = (message: string): never => {
    throw new Error(`${message}\nsteps:\n${log.map((line, i) => `  ${i + 1}. ${line}`).join('\n')}`);
  };
  const expectOutcome = (what: string, expected: Expected, actual: string): void => {
    log.push(`${what} → ${actual}`);
    if (actual !== expected) fail(`${what}: the model expects ${expected}, the backend answered ${actual}`);
  };

  for (const op of ops) {
    const ids = model.ids();
    const now = t.now();
    /** The op's target: among jobs the op is legal for when focused (and there are any), else among all. */
    const pick = (n: number, focused: boolean, legal: (id: string) => boolean): string | undefined => {
      const pool = focused && ids.some(legal) ? ids.filter(legal) : ids;
      return pool.length === 0 ? undefined : pool[n % pool.length];
    };
    const inState = (trigger: Trigger) => (id: string) => canFire(model.get(id).state, trigger);
    switch (op.kind) {
      case 'enqueue': {
        const id = newId();
        const options: Record<string, unknown> = {
          queue,
          retry: {
            max_attempts: op.maxAttempts,
            initial_interval: 'PT1S',
            backoff_coefficient: 2,
            jitter: false,
            on_exhaustion: op.deadLetter ? 'dead_letter' : 'discard',
          },
        };
        if (op.mode === 'scheduled') options.scheduled_at = `+PT${op.delayS}S`;
        if (op.mode === 'pending') options.pending = true;
        if (op.expiresS !== null) options.expires_at = `+PT${op.expiresS}S`;
        if (op.timeoutS !== null) options.timeout_ms = op.timeoutS * 1_000;
        const res = await t.api.enqueue({ id, type: 'model.job', args: [ids.length], options });
        const expected = model.push(
          {
            id,
            mode: op.mode,
            delayMs: op.delayS * 1_000,
            maxAttempts: op.maxAttempts,
            deadLetter: op.deadLetter,
            ...(op.expiresS !== null ? { expiresAt: now + op.expiresS * 1_000 } : {}),
            ...(op.timeoutS !== null ? { timeoutMs: op.timeoutS * 1_000 } : {}),
          },
          now,
        );
        log.push(`enqueue ${JSON.stringify(op)} as #${ids.length} → ${res.job.state}`);
        if (res.job.state !== expected) fail(`enqueue: the model expects ${expected}, the backend stored ${res.job.state}`);
        break;
      }
      case 'fetch': {
        fetches += 1;
        const worker = `mw-${run}-${fetches}`;
        const visibilityMs = op.visibilityS * 1_000;
        const { groups } = model.claimable(now);
        const res = await t.api.fetch({ queues: [queue], count: op.count, worker_id: worker, visibility_timeout_ms: visibilityMs });
        const got = res.jobs.map((j) => j.id);
        log.push(`fetch count=${op.count} vis=${op.visibilityS}s → [${got.map((id) => `#${ids.indexOf(id)}`).join(', ')}]`);
        const eligible = groups.flat();
        const want = Math.min(op.count, eligible.length);
        if (got.length !== want) fail(`fetch: the model expects ${want} job(s), the backend returned ${got.length}`);
        if (new Set(got).size !== got.length) fail('fetch returned a job twice');
        // Claim order: by FIFO group; inside a group (same step) any order.
        const groupOf = (id: string) => groups.findIndex((g) => g.includes(id));
        let covered = 0;
        for (const [i, id] of got.entries()) {
          const g = groupOf(id);
          if (g < 0) fail(`fetch returned #${ids.indexOf(id)}, which the model holds not claimable`);
          if (i > 0 && g < groupOf(got[i - 1]!)) fail('fetch returned jobs out of FIFO order');
          while (covered < g) {
            if (!groups[covered]!.every((other) => got.includes(other))) fail(`fetch skipped an older available job for #${ids.indexOf(id)}`);
            covered += 1;
          }
        }
        for (const id of got) model.claimed(id, worker, visibilityMs, now);
        break;
      }
      case 'ack': {
        const id = pick(op.job, op.focus, inState('ack'));
        if (!id) break;
        expectOutcome(`ack #${ids.indexOf(id)} (${model.get(id).state})`, model.ack(id), await outcomeOf(t.api.ack({ job_id: id })));
        break;
      }
      case 'nack': {
        const id = pick(op.job, op.focus, inState(op.mode === 'requeue' ? 'requeue' : 'fail'));
        if (!id) break;
        const before = model.get(id).state;
        const request =
          op.mode === 'requeue'
            ? { job_id: id, requeue: true }
            : { job_id: id, error: { code: 'model_error', message: op.mode, ...(op.mode === 'fatal' ? { retryable: false } : {}) } };
        expectOutcome(`nack(${op.mode}) #${ids.indexOf(id)} (${before})`, model.nack(id, op.mode, now), await outcomeOf(t.api.nack(request)));
        break;
      }
      case 'cancel': {
        const id = pick(op.job, op.focus, inState('cancel'));
        if (!id) break;
        expectOutcome(`cancel #${ids.indexOf(id)} (${model.get(id).state})`, model.cancel(id), await outcomeOf(t.api.cancelJob(id)));
        break;
      }
      case 'activate': {
        const id = pick(op.job, op.focus, inState('activate'));
        if (!id) break;
        expectOutcome(`activate #${ids.indexOf(id)} (${model.get(id).state})`, model.activate(id), await outcomeOf(t.api.activateJob(id)));
        break;
      }
      case 'dlq-retry': {
        const id = pick(op.job, op.focus, (candidate) => model.get(candidate).inDeadLetter);
        if (!id) break;
        expectOutcome(`dead-letter retry #${ids.indexOf(id)} (${model.get(id).state})`, model.deadLetterRetry(id), await outcomeOf(t.api.retryDeadLetter(id)));
        break;
      }
      case 'heartbeat': {
        const id = pick(op.job, op.focus, inState('visibility_timeout'));
        if (!id) break;
        const worker = model.get(id).lastWorker ?? `mw-${run}-none`;
        const extended = model.heartbeat(id, worker, now);
        const res = await t.api.heartbeat({ worker_id: worker, active_job_ids: [id] });
        log.push(`heartbeat #${ids.indexOf(id)} by ${worker} → extended [${res.jobs_extended.length}]`);
        if (res.jobs_extended.includes(id) !== extended)
          fail(`heartbeat: the model expects extended=${extended}, the backend reported ${res.jobs_extended.includes(id)}`);
        break;
      }
      case 'advance': {
        const ms = op.halves * 500 + 1;
        t.clock.advance(ms);
        await t.maintenance();
        model.maintenance(t.now());
        log.push(`advance ${ms} ms + maintenance`);
        break;
      }
    }
    // Compare every job after every step (reads issued together: they overlap on networked backends), once a
    // dispatch log has delivered what the step made ready.
    await t.dispatch.settle();
    const jobIds = model.ids();
    const actuals = await Promise.all(jobIds.map(async (id) => (await t.api.getJob(id)).job));
    for (const [i, id] of jobIds.entries()) {
      const actual = actuals[i]!;
      if (!model.resolve(id, modelState(t, actual), actual.attempt)) {
        const options = model
          .options(id)
          .map((c) => `${c.state}/attempt ${c.attempt}`)
          .join(' or ');
        fail(`job #${model.ids().indexOf(id)}: the model expects ${options}, the backend has ${actual.state}/attempt ${actual.attempt}`);
      }
    }
  }
  // Leave nothing claimable behind: later sequences share the store.
  for (const id of model.unfinished()) await outcomeOf(t.api.cancelJob(id));
}

/** Sequences per run: `OJSKIT_CONTRACT_MODEL_RUNS` if set, else the backend's `modelRuns`, else 1000. */
export function modelRuns(configured = 1_000): number {
  const raw = Number(process.env.OJSKIT_CONTRACT_MODEL_RUNS);
  return Number.isInteger(raw) && raw > 0 ? raw : configured;
}

/**
 * Independent streams the sequences are split over, each on a subject (store, clock) of its own, run
 * together: on a networked store one stream mostly waits on round trips, so four overlap those waits.
 * Sequences of one stream run one after another, since they share its clock.
 */
const MODEL_STREAMS = 4;

/**
 * The seed of each stream. A replay (`OJSKIT_CONTRACT_MODEL_SEED`, the seed a failure printed) runs one
 * stream, so the seed and path fast-check reported lead to the same sequence.
 */
function streamSeeds(): number[] {
  const replay = process.env.OJSKIT_CONTRACT_MODEL_SEED;
  if (replay) return [Number(replay)];
  const base = Math.floor(Math.random() * 0x7fff_ffff);
  return Array.from({ length: MODEL_STREAMS }, (_, i) => (base + i) | 0);
}

export function registerModelCases(suite: Suite): void {
  const runs = modelRuns(suite.options.modelRuns);
  suite.group('model', () => {
    suite.raw(
      'model.random-sequences',
      `random operation sequences agree with the TRANSITIONS-derived model (${runs} runs)`,
      async (create) => {
        const seeds = streamSeeds();
        const results = await Promise.allSettled(
          seeds.map(async (seed, i) => {
            // The first streams take the remainder, so the counts add up to `runs`.
            const numRuns = Math.floor(runs / seeds.length) + (i < runs % seeds.length ? 1 : 0);
            if (numRuns === 0) return;
            const subject = await create();
            try {
              const t = new CaseContext(subject);
              await fc.assert(
                fc.asyncProperty(sequenceArbitrary, (ops) => runSequence(t, ops)),
                { numRuns, seed },
              );
            } finally {
              await subject.close();
            }
          }),
        );
        const failed = results.find((result): result is PromiseRejectedResult => result.status === 'rejected');
        if (failed) throw failed.reason;
      },
      { timeoutMs: 600_000 },
    );
  });
}
