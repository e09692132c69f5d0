/**
 * The universal model: each OJS state's counterpart in other job systems and in three smaller designs, as
 * data. The playground renders it and spec/universal-model.md is generated from it; which OJS transitions a
 * system lacks is computed from the table, never listed by hand.
 */
import type { JobState } from './states.js';
import { TRANSITIONS, type Transition, type Trigger } from './transitions.js';

/** One job system (or design) mapped onto the eight OJS states. */
export interface SystemModel {
  /** Stable identifier (`sidekiq`, `five-state-api`, …). */
  readonly id: string;
  readonly name: string;
  /** `library`: a job system people run; `design`: a common shape of job API. */
  readonly kind: 'library' | 'design';
  /** What the mapping is of: the library's open-source core, or a one-line description of the design. */
  readonly scope: string;
  /** The system's native name for each state; `null` where it has no such state. */
  readonly states: Readonly<Record<JobState, string | null>>;
  /** Causes of change the system has no mechanism for: rows with these triggers are lacking. */
  readonly missingTriggers: readonly Trigger[];
  /** Why, for states or triggers that need a word. */
  readonly notes: readonly string[];
}

/** How one row of the OJS table shows up in a system. */
export type TransitionSupport =
  /** The system has both states and the cause: the move is visible. */
  | 'native'
  /** Both OJS states map to the same native state: the move happens but cannot be seen. */
  | 'collapsed'
  /** A state it needs does not exist there, or the cause does not. */
  | 'missing';

export const UNIVERSAL_MODEL: readonly SystemModel[] = [
  {
    id: 'sidekiq',
    name: 'Sidekiq',
    kind: 'library',
    scope: 'Sidekiq (open-source, Redis): jobs live in a queue list, the schedule, retry and dead sorted sets.',
    states: {
      scheduled: 'scheduled (schedule set)',
      available: 'enqueued (queue)',
      pending: null,
      active: 'busy',
      completed: null,
      retryable: 'retry set',
      cancelled: null,
      discarded: 'dead (morgue)',
    },
    missingTriggers: ['activate', 'expiry', 'visibility_timeout', 'worker_death', 'execution_timeout', 'cancel', 'unique_replace', 'requeue'],
    notes: [
      'A finished job is deleted and only counted in the processed stats: there is no completed record.',
      'Basic fetch pops the job: a crashed process loses it (reliable fetch is in Sidekiq Pro).',
      'There is no cancel state; a queued or scheduled job can only be deleted.',
    ],
  },
  {
    id: 'celery',
    name: 'Celery',
    kind: 'library',
    scope: 'Celery task states (result backend on, task_track_started on).',
    states: {
      scheduled: 'PENDING (eta/countdown)',
      available: 'PENDING',
      pending: 'RECEIVED',
      active: 'STARTED',
      completed: 'SUCCESS',
      retryable: 'RETRY',
      cancelled: 'REVOKED',
      discarded: 'FAILURE',
    },
    missingTriggers: ['activate', 'dead_letter_retry', 'unique_replace', 'expiry'],
    notes: [
      'PENDING also means "unknown task id": waiting and scheduled cannot be told apart.',
      'An expired task is REVOKED (cancelled), not failed; a crashed worker loses its task unless acks_late is on.',
      'RECEIVED is the worker holding the message before it starts: the nearest thing to pending.',
      'No dead-letter queue: a FAILURE is final unless the task is sent again as a new task.',
    ],
  },
  {
    id: 'bullmq',
    name: 'BullMQ',
    kind: 'library',
    scope: 'BullMQ job states (Redis).',
    states: {
      scheduled: 'delayed',
      available: 'waiting (or prioritized)',
      pending: 'waiting-children',
      active: 'active',
      completed: 'completed',
      retryable: 'delayed (backoff)',
      cancelled: null,
      discarded: 'failed',
    },
    missingTriggers: ['activate', 'expiry', 'cancel', 'execution_timeout', 'unique_replace'],
    notes: [
      'A retry waits in the same delayed set as a scheduled job, so retryable and scheduled look alike.',
      'Removing a job deletes it: there is no cancelled state.',
      'Stalled-job checks return an active job whose lock lapsed to waiting (the visibility timeout).',
      'waiting-children holds a parent until its children finish; a job is never held for an explicit activation.',
    ],
  },
  {
    id: 'oban',
    name: 'Oban',
    kind: 'library',
    scope: 'Oban (open-source, PostgreSQL) job states.',
    states: {
      scheduled: 'scheduled',
      available: 'available',
      pending: null,
      active: 'executing',
      completed: 'completed',
      retryable: 'retryable',
      cancelled: 'cancelled',
      discarded: 'discarded',
    },
    missingTriggers: ['activate', 'expiry', 'unique_replace', 'requeue'],
    notes: [
      'The Lifeline plugin rescues orphaned executing jobs (the visibility timeout and worker death).',
      'There is no separate dead-letter queue: discarded jobs stay in the table and Oban.retry_job revives them.',
    ],
  },
  {
    id: 'river',
    name: 'River',
    kind: 'library',
    scope: 'River (Go, PostgreSQL) job states.',
    states: {
      scheduled: 'scheduled',
      available: 'available',
      pending: 'pending',
      active: 'running',
      completed: 'completed',
      retryable: 'retryable',
      cancelled: 'cancelled',
      discarded: 'discarded',
    },
    missingTriggers: ['expiry', 'unique_replace', 'requeue'],
    notes: [
      'The rescuer moves a running job stuck past its rescue threshold to retryable (or discarded), not back to available.',
      'JobRetry moves a discarded job back to available, like a dead-letter retry.',
    ],
  },
  {
    id: 'five-state-api',
    name: '5-state job API',
    kind: 'design',
    scope: 'A job resource with status pending | running | success | failed | cancelled.',
    states: {
      scheduled: 'pending',
      available: 'pending',
      pending: 'pending',
      active: 'running',
      completed: 'success',
      retryable: null,
      cancelled: 'cancelled',
      discarded: 'failed',
    },
    missingTriggers: ['dead_letter_retry', 'unique_replace', 'expiry'],
    notes: ['Waiting, scheduled and held jobs are all "pending"; a failed attempt that will be retried has no status of its own.'],
  },
  {
    id: 'four-state-enum',
    name: '4-state enum',
    kind: 'design',
    scope: 'A status enum PENDING | RUNNING | SUCCEEDED | FAILED.',
    states: {
      scheduled: 'PENDING',
      available: 'PENDING',
      pending: 'PENDING',
      active: 'RUNNING',
      completed: 'SUCCEEDED',
      retryable: null,
      cancelled: null,
      discarded: 'FAILED',
    },
    missingTriggers: ['dead_letter_retry', 'unique_replace', 'expiry', 'cancel'],
    notes: ['Cancellation has to be reported as FAILED, losing why the job stopped.'],
  },
  {
    id: 'scheduler-six-state',
    name: '6-state scheduler',
    kind: 'design',
    scope: 'A scheduler with PENDING | RUNNING | SUCCEEDED | FAILED | PAUSED | CANCELED.',
    states: {
      scheduled: 'PENDING',
      available: 'PENDING',
      pending: 'PAUSED',
      active: 'RUNNING',
      completed: 'SUCCEEDED',
      retryable: null,
      cancelled: 'CANCELED',
      discarded: 'FAILED',
    },
    missingTriggers: ['dead_letter_retry', 'unique_replace', 'expiry'],
    notes: ['PAUSED (held until resumed) plays the part of pending, which waits for an explicit activation.'],
  },
];

/**
 * How `row` of the OJS table appears in `system`.
 * @example transitionSupport(UNIVERSAL_MODEL[0], TRANSITIONS[0]) // 'native': Sidekiq pushes into a queue
 */
export function transitionSupport(system: SystemModel, row: Transition): TransitionSupport {
  const to = system.states[row.to];
  const from = row.from === null ? undefined : system.states[row.from];
  if (to === null || from === null || system.missingTriggers.includes(row.trigger)) return 'missing';
  if (from !== undefined && from === to) return 'collapsed';
  return 'native';
}

/**
 * The rows of the OJS table a system lacks (a state or a cause it does not have).
 * @example lackingTransitions(UNIVERSAL_MODEL.find((s) => s.id === 'river')!).map((t) => t.trigger) // ['expiry', …]
 */
export function lackingTransitions(system: SystemModel): Transition[] {
  return TRANSITIONS.filter((row) => transitionSupport(system, row) === 'missing');
}
