/** The shared cases the Kafka driver does not run, each with its written reason (the same with either store). */

/**
 * Driver-suite cases the Kafka driver does not run: none. Cases that read a job they made ready settle the
 * log first and expect `pending`; cases that move a job out of `available` hold its queue (the harness's
 * `DispatchLogControl`, test/support/dispatch-control.ts).
 */
export const DRIVER_SKIPS: Record<string, string> = {};

/** Backend-contract cases the Kafka driver does not run, each with its written reason. */
export const CONTRACT_SKIPS: Record<string, string> = {};

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
