/** The shared cases the Kafka driver does not run, each with its written reason (the same with either store). */
import { JOB_STATES } from '@ojskit/core';
import { canTransition } from '@ojskit/core/lifecycle';
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
    'complete.batch-mixed',
    'insert.stores-and-registers',
    'table.allows.retryable-available',
    'prune.terminal-before',
    'fail.effects.reclaim',
    'fail.guards',
    'counts.per-queue-and-all',
    'delete.guards',
    'workflow.inserts-jobs',
    'race.unique-insert',
    'race.rescue-vs-complete',
    'insert.unique-ignore',
    'transition.worker-guard-without-worker',
    'transition.in-place-reindexes',
    'transition.moves-queue',
  ].map((id) => [id, DISPATCHED_AWAY]),
);

// The generated refusals from `available` read the job back as `available`: the same reason, for each of them.
const READY = 'available' as const;
for (const to of JOB_STATES) {
  if (to !== READY && !canTransition(READY, to, undefined, { dispatchLog: true })) DRIVER_SKIPS[`table.refuses.${READY}-${to}`] = DISPATCHED_AWAY;
}
DRIVER_SKIPS['expire.waiting-jobs'] =
  "the Kafka driver's expirer also discards dispatched pending jobs past expires_at (pending → discarded, a dispatch-log row), which the case expects left alone";

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
    'transitions.rule-16.retryable-timer-available',
    'enqueue.batch',
    'retry.promoted-by-maintenance',
    'visibility.reclaim',
    'visibility.reclaim-exhausted',
    'visibility.job-timeout',
    'visibility.fetch-overrides-job',
    'visibility.server-default',
    'visibility.stale-ack',
    'heartbeat.extends',
    'dead-letter.bulk-retry',
    'scheduling.future',
    'unique.custom-states',
    'cron.once-per-occurrence',
    'cron.catch-up',
    'cron.overlap-skip',
    'concurrency.unique-insert-race',
  ].map((id) => [id, DISPATCHED_AWAY]),
);

/** Why the cases of a driver declaring `capabilities.orderedCalls` do not run here. */
const NOT_ORDERED =
  'the Kafka driver does not declare orderedCalls: a claim made right behind an insert cannot see the job before the log delivered it (the claim waits for it instead, up to claimWaitMs)';

for (const id of [
  'fetch.long-poll-claims-behind-insert',
  'fetch.claims-behind-insert-during-first-claim',
  'fetch.behind-claim-surplus-requeued',
  'concurrency.ordered-calls',
])
  CONTRACT_SKIPS[id] = NOT_ORDERED;

/** Why the rate-limit cases do not run here. */
const NO_RATE_LIMITS =
  "the Kafka driver declares rateLimiting: false: its claim takes dispatched pending jobs and does not apply the store's rate limits yet (issue 28), so options.rate_limit answers 422 unsupported";

for (const id of [
  'rate-limit.manifest',
  'rate-limit.validation',
  'rate-limit.per-second',
  'rate-limit.unlimited-pass',
  'rate-limit.concurrency',
  'rate-limit.default-key',
  'rate-limit.keys-independent',
  'rate-limit.release',
  'rate-limit.wait-wakes-on-release',
  'rate-limit.queue-level',
  'rate-limit.inspect',
])
  CONTRACT_SKIPS[id] = NO_RATE_LIMITS;
