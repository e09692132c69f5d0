/**
 * A cron's `overlap_policy` values (protocol semantics, "Cron"): `cancel` is the protocol's alias of
 * `cancel_previous`, accepted on input and stored as `cancel_previous`. One list for the engine's validator
 * and the gateway's request schema, so the two cannot disagree on the alias.
 */
export const CRON_OVERLAP_POLICIES = ['skip', 'allow', 'cancel_previous', 'cancel', 'enqueue'] as const;

export type CronOverlapPolicy = (typeof CRON_OVERLAP_POLICIES)[number];
