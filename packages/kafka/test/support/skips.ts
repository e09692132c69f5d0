/** The shared cases the Kafka driver does not run, each with its written reason (the same with either store). */
import { DISPATCHED_AWAY } from './stores.js';

/** Driver-suite cases that read a job they put in `available` (or its count) afterwards. */
export const DRIVER_SKIPS: Record<string, string> = Object.fromEntries(
  [
    'insert.duplicate-id-aborts',
    'claim.fifo-kept-through-updates',
    'insert.unique-reject-aborts-all',
    'insert.unique-replace',
    'claim.queue-order-and-limit',
    'complete.guards',
    'fail.effects.reclaim',
    'fail.guards',
    'table.refuses.available-scheduled',
    'table.refuses.available-completed',
    'counts.per-queue-and-all',
    'delete.guards',
    'workflow.inserts-jobs',
    'race.unique-insert',
    'race.rescue-vs-complete',
  ].map((id) => [id, DISPATCHED_AWAY]),
);

/** Backend-contract cases that read a job, a listing, a count or an event as `available` after the job was dispatched. */
export const CONTRACT_SKIPS: Record<string, string> = Object.fromEntries(
  [
    'transitions.rule-1.new-push-available',
    'transitions.rule-4.scheduled-timer-available',
    'transitions.rule-5.pending-activate-available',
    'transitions.rule-11.active-requeue-available',
    'transitions.rule-12.active-visibility_timeout-available',
    'transitions.rule-12.active-worker_death-available',
    'envelope.duplicate-id',
    'enqueue.single',
    'enqueue.batch-large',
    'enqueue.batch-duplicate-id',
    'fetch.long-poll-abort',
    'fetch.paused-skipped',
    'queues.stats',
    'unique.reject',
    'unique.distinct-args',
    'unique.period',
    'cron.overlap-allow',
    'admin.list-jobs',
    'bulk.retry-delete',
    'model.random-sequences',
  ].map((id) => [id, DISPATCHED_AWAY]),
);
