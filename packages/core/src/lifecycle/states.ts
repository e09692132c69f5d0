/** The eight OJS job states: the only list of states in ojskit. Everything else imports it. */

/** Every state a job can be in, in lifecycle order. */
export const JOB_STATES = ['scheduled', 'available', 'pending', 'active', 'completed', 'retryable', 'cancelled', 'discarded'] as const;

/** One of the eight OJS job states. */
export type JobState = (typeof JOB_STATES)[number];

/** States a job never leaves by itself (only a dead-letter retry revives a `discarded` job). */
export const TERMINAL_STATES: readonly JobState[] = ['completed', 'cancelled', 'discarded'];

/** States in which a job still has work ahead of it. */
export const NON_TERMINAL_STATES: readonly JobState[] = JOB_STATES.filter((s) => !TERMINAL_STATES.includes(s));

/**
 * True when `value` names one of the eight states.
 * @example isJobState('active') // true
 */
export function isJobState(value: unknown): value is JobState {
  return typeof value === 'string' && (JOB_STATES as readonly string[]).includes(value);
}

/** True for `completed`, `cancelled` and `discarded`. */
export function isTerminal(state: JobState): boolean {
  return TERMINAL_STATES.includes(state);
}
