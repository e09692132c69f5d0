/**
 * A small reference model of one queue's jobs for the model-based property. Its legality rules come from
 * core's `TRANSITIONS` (a client operation is legal iff the table has a row for the job's state and the
 * operation's trigger; every internal move asserts its row exists), so the model cannot drift from the table.
 * Where the protocol leaves an order open (which of two overdue deadlines fires, whether an expired job is
 * swept in the same pass that reclaimed it), the model keeps several candidate outcomes and resolves them
 * against what the backend reports.
 */
import type { JobState } from '@ojskit/core';
import { TRANSITIONS, canTransition, type Trigger } from '@ojskit/core/lifecycle';

/** Retry policy every model job uses: deterministic delays so the model can compute due times. */
export const MODEL_RETRY_INITIAL_MS = 1_000;
const MODEL_RETRY_MAX_MS = 300_000;
/** Silence after which a worker that heartbeated is declared dead (the engine's default). */
export const WORKER_DEATH_MS = 30_000;
/** Default execution limit (protocol default). */
export const DEFAULT_TIMEOUT_MS = 1_800_000;

export interface ModelJob {
  readonly id: string;
  readonly state: JobState;
  readonly attempt: number;
  readonly maxAttempts: number;
  readonly deadLetterPolicy: boolean;
  readonly inDeadLetter: boolean;
  readonly timeoutMs: number;
  readonly expiresAt?: number;
  /** `scheduled`/`retryable`: when the job becomes due. */
  readonly dueAt?: number;
  /** `active`: reservation deadline, execution deadline, reservation length, holder. */
  readonly visibleUntil?: number;
  readonly timeoutAt?: number;
  readonly claimVisibilityMs?: number;
  readonly worker?: string;
  /** The worker of the last claim (kept after the job is released), for stale heartbeats. */
  readonly lastWorker?: string;
  /** `available`: FIFO group. Jobs that became available in the same step share a group (order open). */
  readonly epoch: number;
}

/** Expected outcome of a client operation: success, or the OJS error code. */
export type Expected = 'ok' | 'conflict' | 'not_found';

/** True when the table has a row leaving `state` by `trigger`. */
export function canFire(state: JobState, trigger: Trigger): boolean {
  return TRANSITIONS.some((row) => row.from === state && row.trigger === trigger);
}

/** The state a trigger leads to from `state` when the table has exactly one such row. */
function onlyTarget(state: JobState, trigger: Trigger): JobState {
  const targets = TRANSITIONS.filter((row) => row.from === state && row.trigger === trigger).map((row) => row.to);
  if (targets.length !== 1) throw new Error(`model: expected one row for ${state} --${trigger}-->, found ${targets.length}`);
  return targets[0]!;
}

/** The state a claim puts a job in (the `fetch` rows' target). */
const RESERVED: JobState = TRANSITIONS.find((row) => row.trigger === 'fetch')!.to;

const ACTIVE_FIELDS_CLEARED = { visibleUntil: undefined, timeoutAt: undefined, claimVisibilityMs: undefined, worker: undefined } as const;

/** Moves a job, refusing any move the table does not list. */
function move(job: ModelJob, trigger: Trigger, to: JobState, patch: Partial<ModelJob> = {}): ModelJob {
  if (!canTransition(job.state, to, trigger)) throw new Error(`model bug: ${job.state} --${trigger}--> ${to} is not in TRANSITIONS`);
  return { ...job, ...patch, state: to };
}

function retryDelay(attempt: number): number {
  return Math.min(MODEL_RETRY_INITIAL_MS * 2 ** (attempt - 1), MODEL_RETRY_MAX_MS);
}

interface WorkerModel {
  lastBeat: number;
  ids: string[];
  dead: boolean;
}

/** The reference model of one run's jobs. */
export class ReferenceModel {
  /** Candidate outcomes per job id, in creation order; usually one candidate each. */
  private readonly candidates = new Map<string, ModelJob[]>();
  private readonly workers = new Map<string, WorkerModel>();
  private epochCounter = 0;

  ids(): string[] {
    return [...this.candidates.keys()];
  }

  /** The job as the model knows it (its first candidate). */
  get(id: string): ModelJob {
    return this.candidates.get(id)![0]!;
  }

  /** Every candidate for a job (for error messages). */
  options(id: string): readonly ModelJob[] {
    return this.candidates.get(id)!;
  }

  private set(job: ModelJob): void {
    this.candidates.set(job.id, [job]);
  }

  private nextEpoch(): number {
    this.epochCounter += 1;
    return this.epochCounter;
  }

  /** Keeps the candidate whose state and attempt match what the backend reports; false when none does. */
  resolve(id: string, state: JobState, attempt: number): boolean {
    const match = this.candidates.get(id)!.find((c) => c.state === state && c.attempt === attempt);
    if (!match) return false;
    this.set(match);
    return true;
  }

  /** PUSH. */
  push(
    init: {
      id: string;
      mode: 'now' | 'scheduled' | 'pending';
      delayMs: number;
      maxAttempts: number;
      deadLetter: boolean;
      expiresAt?: number;
      timeoutMs?: number;
    },
    now: number,
  ): JobState {
    const target: JobState = init.mode === 'pending' ? 'pending' : init.mode === 'scheduled' ? 'scheduled' : 'available';
    if (!canTransition(null, target, 'push')) throw new Error(`model bug: push into ${target} is not in TRANSITIONS`);
    this.set({
      id: init.id,
      state: target,
      attempt: 0,
      maxAttempts: init.maxAttempts,
      deadLetterPolicy: init.deadLetter,
      inDeadLetter: false,
      timeoutMs: init.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      ...(init.expiresAt !== undefined ? { expiresAt: init.expiresAt } : {}),
      ...(target === 'scheduled' ? { dueAt: now + init.delayMs } : {}),
      epoch: target === 'available' ? this.nextEpoch() : 0,
    });
    return target;
  }

  /** The failure decision (FAIL or execution timeout): retry with backoff, or discard (into the DLQ per policy). */
  private failed(job: ModelJob, trigger: 'fail' | 'execution_timeout', retryable: boolean, now: number): ModelJob {
    if (retryable && job.attempt < job.maxAttempts) {
      return move(job, trigger, 'retryable', { ...ACTIVE_FIELDS_CLEARED, dueAt: now + retryDelay(job.attempt) });
    }
    return move(job, trigger, 'discarded', { ...ACTIVE_FIELDS_CLEARED, dueAt: undefined, inDeadLetter: job.deadLetterPolicy });
  }

  /** A reclaim (visibility deadline, dead worker): straight back to available, attempt consumed; or discard. */
  private reclaimed(job: ModelJob, trigger: 'visibility_timeout' | 'worker_death', epoch: number): ModelJob {
    if (job.attempt >= job.maxAttempts) return move(job, trigger, 'discarded', { ...ACTIVE_FIELDS_CLEARED, inDeadLetter: job.deadLetterPolicy });
    return move(job, trigger, 'available', { ...ACTIVE_FIELDS_CLEARED, epoch });
  }

  private expired(job: ModelJob): ModelJob {
    return move(job, 'expiry', 'discarded', { dueAt: undefined });
  }

  private isExpired(job: ModelJob, now: number): boolean {
    return job.expiresAt !== undefined && job.expiresAt < now;
  }

  ack(id: string): Expected {
    const job = this.get(id);
    if (!canFire(job.state, 'ack')) return 'conflict';
    this.set(move(job, 'ack', onlyTarget(job.state, 'ack'), { ...ACTIVE_FIELDS_CLEARED }));
    return 'ok';
  }

  nack(id: string, mode: 'retryable' | 'fatal' | 'requeue', now: number): Expected {
    const job = this.get(id);
    if (mode === 'requeue') {
      if (!canFire(job.state, 'requeue')) return 'conflict';
      // The attempt is handed back so the next claim shows the same number.
      this.set(move(job, 'requeue', onlyTarget(job.state, 'requeue'), { ...ACTIVE_FIELDS_CLEARED, attempt: job.attempt - 1, epoch: this.nextEpoch() }));
      return 'ok';
    }
    if (!canFire(job.state, 'fail')) return 'conflict';
    this.set(this.failed(job, 'fail', mode === 'retryable', now));
    return 'ok';
  }

  cancel(id: string): Expected {
    const job = this.get(id);
    if (!canFire(job.state, 'cancel')) return 'conflict';
    this.set(move(job, 'cancel', onlyTarget(job.state, 'cancel'), { ...ACTIVE_FIELDS_CLEARED, dueAt: undefined }));
    return 'ok';
  }

  activate(id: string): Expected {
    const job = this.get(id);
    if (!canFire(job.state, 'activate')) return 'conflict';
    this.set(move(job, 'activate', onlyTarget(job.state, 'activate'), { epoch: this.nextEpoch() }));
    return 'ok';
  }

  deadLetterRetry(id: string): Expected {
    const job = this.get(id);
    if (!canFire(job.state, 'dead_letter_retry') || !job.inDeadLetter) return 'not_found';
    this.set(move(job, 'dead_letter_retry', onlyTarget(job.state, 'dead_letter_retry'), { attempt: 0, inDeadLetter: false, epoch: this.nextEpoch() }));
    return 'ok';
  }

  /** BEAT for one job by `worker`; returns whether the job must be reported extended. */
  heartbeat(id: string, worker: string, now: number): boolean {
    this.workers.set(worker, { lastBeat: now, ids: [id], dead: false });
    const job = this.get(id);
    if (job.state !== RESERVED || job.worker !== worker) return false;
    this.set({ ...job, visibleUntil: now + job.claimVisibilityMs! });
    return true;
  }

  /**
   * What a FETCH of `count` may return: ids grouped by FIFO epoch, oldest first. Expired available jobs are
   * never claimable; the claim may discard them on the spot (or leave them for the sweeper).
   */
  claimable(now: number): { groups: string[][]; expired: string[] } {
    const available = this.ids()
      .map((id) => this.get(id))
      .filter((job) => canFire(job.state, 'fetch'));
    const expired = available.filter((job) => this.isExpired(job, now));
    const eligible = available.filter((job) => !this.isExpired(job, now)).sort((a, b) => a.epoch - b.epoch);
    const groups: string[][] = [];
    for (const job of eligible) {
      const last = groups.at(-1);
      if (last && this.get(last[0]!).epoch === job.epoch) last.push(job.id);
      else groups.push([job.id]);
    }
    for (const job of expired) this.candidates.set(job.id, [this.expired(job), job]);
    return { groups, expired: expired.map((j) => j.id) };
  }

  /** Applies a claim the backend made. */
  claimed(id: string, worker: string, visibilityMs: number, now: number): void {
    const job = this.get(id);
    this.set(
      move(job, 'fetch', RESERVED, {
        attempt: job.attempt + 1,
        worker,
        lastWorker: worker,
        visibleUntil: now + visibilityMs,
        timeoutAt: now + job.timeoutMs,
        claimVisibilityMs: visibilityMs,
        dueAt: undefined,
      }),
    );
  }

  /** One pass of every background service at `now`: promote, rescue (deadlines, dead workers), expire. */
  maintenance(now: number): void {
    const epoch = this.nextEpoch();
    const touched = new Set<string>();
    // Promote due scheduled/retryable jobs (or discard them when already expired).
    for (const id of this.ids()) {
      const job = this.get(id);
      if (!canFire(job.state, 'timer') || job.dueAt === undefined || job.dueAt > now) continue;
      this.set(this.isExpired(job, now) ? this.expired(job) : move(job, 'timer', onlyTarget(job.state, 'timer'), { dueAt: undefined, epoch }));
      touched.add(id);
    }
    // Rescue overdue reservations. When both deadlines passed, the protocol does not say which fires.
    for (const id of this.ids()) {
      const job = this.get(id);
      if (!canFire(job.state, 'visibility_timeout')) continue;
      const execution = job.timeoutAt! <= now;
      const visibility = job.visibleUntil! <= now;
      if (!execution && !visibility) continue;
      const outcomes: ModelJob[] = [];
      if (execution) outcomes.push(this.failed(job, 'execution_timeout', true, now));
      if (visibility) outcomes.push(this.reclaimed(job, 'visibility_timeout', epoch));
      this.candidates.set(id, outcomes);
      touched.add(id);
    }
    for (const [name, worker] of this.workers) {
      if (worker.dead || now - worker.lastBeat <= WORKER_DEATH_MS) continue;
      for (const id of worker.ids) {
        const job = this.get(id);
        if (job.state !== RESERVED || job.worker !== name || touched.has(id)) continue;
        this.set(this.reclaimed(job, 'worker_death', epoch));
        touched.add(id);
      }
      this.workers.set(name, { ...worker, dead: true, ids: [] });
    }
    // Expire. A job rescued in this pass may or may not be swept in the same pass.
    for (const id of this.ids()) {
      const options = this.candidates.get(id)!;
      const next: ModelJob[] = [];
      for (const job of options) {
        const sweep = canFire(job.state, 'expiry') && this.isExpired(job, now);
        if (!sweep) next.push(job);
        else if (touched.has(id)) next.push(job, this.expired(job));
        else next.push(this.expired(job));
      }
      this.candidates.set(id, next);
    }
  }

  /** Jobs not yet in a terminal state (for cleanup). */
  unfinished(): string[] {
    return this.ids().filter((id) => canFire(this.get(id).state, 'cancel'));
  }
}
