/**
 * Behaviours that users of the systems in the universal model rely on, and ojskit's answer to each: built in
 * (how, and the contract case that proves it on every backend) or declined (why). spec/universal-model.md
 * and the playground render this list.
 */

/** One behaviour of another job system and how ojskit answers it. */
export type BorrowedBehaviour = {
  /** Stable identifier. */
  readonly id: string;
  /** `UNIVERSAL_MODEL` ids of the systems known for it. */
  readonly systems: readonly string[];
  /** The behaviour as those systems' users describe it. */
  readonly behaviour: string;
} & (
  | {
      readonly answer: 'built-in';
      /** How to get it with OJS requests. */
      readonly how: string;
      /** Ids of the `@ojskit/contract` cases that prove it on every backend. */
      readonly proof: readonly string[];
    }
  | {
      readonly answer: 'declined';
      /** Why ojskit does not have it, and what comes closest. */
      readonly why: string;
    }
);

export const BORROWED_BEHAVIOURS: readonly BorrowedBehaviour[] = [
  {
    id: 'business-key-unique-while-running',
    systems: ['scheduler-six-state', 'oban', 'river'],
    behaviour: 'A business key (an order id, say) unique among running jobs only, so a second run of the same key is refused while queued twins may wait.',
    answer: 'built-in',
    how: '`options.unique` with `args_keys: ["order_id"]` and `states: ["active"]` (any set of states; the default is every unfinished state); checked atomically with the insert.',
    proof: ['unique.business-key-active', 'unique.custom-states'],
  },
  {
    id: 'manual-retry-resets-attempts',
    systems: ['scheduler-six-state', 'sidekiq', 'bullmq', 'oban'],
    behaviour: 'Retry a failed job by hand, starting again with a full set of attempts.',
    answer: 'built-in',
    how: '`POST /ojs/v1/dead-letter/:id/retry` or `POST /ojs/v1/admin/jobs/:id/retry`: `discarded` → `available` (rule 19) with `attempt` 0; on a `retryable` job the admin retry runs it now instead of at `next_attempt_at`.',
    proof: ['dead-letter.retry', 'admin.retry-job'],
  },
  {
    id: 'pause-one-job',
    systems: ['scheduler-six-state'],
    behaviour: 'Pause a single queued job (a PAUSED job state) and resume it later.',
    answer: 'declined',
    why:
      'The OJS table has no move from `available` or `scheduled` into a held state, so OJS clients and conformance tools would see it as illegal. ' +
      'A job is held from the start with `pending: true` and released by `ACTIVATE`; a whole queue is paused with `POST /ojs/v1/queues/:name/pause` (persisted, FETCH skips it); a queued job can be cancelled and enqueued again.',
  },
  {
    id: 'snooze',
    systems: ['oban', 'river'],
    behaviour: 'Snooze: a running job puts itself back for a while without spending an attempt.',
    answer: 'declined',
    why:
      'FAIL has no delay field in OJS. `requeue: true` on FAIL hands the job back at once with its attempt returned; for a delay, the handler enqueues a follow-up with `scheduled_at` and ACKs. ' +
      'A delayed requeue would be an extension every SDK must learn; none of the OJS SDKs sends one.',
  },
  {
    id: 'delete-queued-job',
    systems: ['sidekiq', 'bullmq'],
    behaviour: 'Delete a queued or scheduled job outright.',
    answer: 'built-in',
    how:
      '`DELETE /ojs/v1/jobs/:id` cancels it (`cancelled`, rule 17, the record kept); `POST /ojs/v1/jobs/bulk/delete` (by ids, or by filter with `confirm: true`) then removes finished jobs entirely. ' +
      'An unfinished job is never removed without a trace: a worker may be claiming it at that moment.',
    proof: ['transitions.rule-17.available-cancel-cancelled', 'bulk.retry-delete'],
  },
  {
    id: 'read-results',
    systems: ['celery', 'bullmq'],
    behaviour: "Read a finished task's return value (Celery's result backend, BullMQ's returnvalue).",
    answer: 'built-in',
    how: 'ACK carries `result`; `GET /ojs/v1/jobs/:id` returns it with the `completed` job for as long as the job is retained.',
    proof: ['ack.shape'],
  },
  {
    id: 'parent-waits-for-children',
    systems: ['bullmq', 'celery', 'sidekiq'],
    behaviour: 'A job that runs only when the jobs it depends on are done (BullMQ flows, Celery chords, Sidekiq Pro batches).',
    answer: 'built-in',
    how: 'Workflows: `POST /ojs/v1/workflows` with a chain, group or batch; a step becomes `available` once its dependencies complete, and a batch fires its callbacks once.',
    proof: ['workflows.chain', 'workflows.batch-callback-results'],
  },
  {
    id: 'periodic-jobs',
    systems: ['sidekiq', 'celery', 'bullmq', 'oban', 'river'],
    behaviour: 'Periodic jobs from a cron expression, enqueued once per tick however many processes run.',
    answer: 'built-in',
    how: '`POST /ojs/v1/cron` registers a schedule (5- or 6-field expressions, shorthands, time zones); the scheduler runs under a lease, so one process enqueues each tick.',
    proof: ['cron.once-per-occurrence'],
  },
];
