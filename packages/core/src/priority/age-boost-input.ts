/**
 * Validation of a queue configuration's `age_boost` (spec/admin.md, "Age boost"): the engine's parser and the
 * zod schema the gateway declares, built from the same rules here so they accept the same bodies.
 */
import { z } from 'zod';
import { durationToMs } from '../formats/durations.js';
import { AGE_BOOST_MAX_INTERVAL_MS, AGE_BOOST_MIN_INTERVAL_MS, type AgeBoost } from './age-boost.js';
import { invalidField, isPlainObject } from '../schemas/fields.js';

const EXPECTED_INTERVAL = `a whole number of ms from ${AGE_BOOST_MIN_INTERVAL_MS} to ${AGE_BOOST_MAX_INTERVAL_MS} (30 days)`;

/** Whether `ms` is an interval an age boost takes: a whole number of ms from 1 ms to 30 days. */
function isInterval(ms: number): boolean {
  return Number.isInteger(ms) && ms >= AGE_BOOST_MIN_INTERVAL_MS && ms <= AGE_BOOST_MAX_INTERVAL_MS;
}

/** The interval a duration text (`PT5M`, `5m`) gives, or undefined when it is no duration or out of range. */
function intervalOfDuration(text: string): number | undefined {
  const ms = durationToMs(text);
  return ms !== undefined && isInterval(ms) ? ms : undefined;
}

/**
 * The request form of `age_boost`, as `parseAgeBoost` accepts it: `{ interval_ms }` or `{ interval }` (not
 * both; either may be null), `{}` or null for no aging. The gateway's queue-configuration body uses it.
 */
export const AgeBoostInputSchema = z
  .strictObject({
    interval_ms: z
      .number()
      .int()
      .min(AGE_BOOST_MIN_INTERVAL_MS)
      .max(AGE_BOOST_MAX_INTERVAL_MS)
      .nullable()
      .optional()
      .describe('Waiting worth one priority step (ms, at most 30 days).'),
    interval: z
      .string()
      .refine((text) => intervalOfDuration(text) !== undefined, { message: 'a duration such as "PT5M" or "5m", from 1 ms to 30 days' })
      .nullable()
      .optional()
      .describe('The same as a duration (`PT5M`, `5m`); give one of the two.'),
  })
  .refine((value) => value.interval_ms === undefined || value.interval === undefined, { message: 'interval_ms or interval, not both' })
  .nullable()
  .describe(
    'Priority aging (spec/admin.md, "Age boost"): the claim takes jobs by enqueued_ms − priority × interval_ms, smallest first, so a job of priority p is passed by jobs enqueued at most (100 − p) × interval after it. null or absent: priority then FIFO.',
  );

/**
 * Validates `age_boost`: `{ interval_ms }` or `{ interval }` (a duration: `PT5M`, `5m`); `null` or `{}` turns
 * aging off (undefined). Anything else is a `400 invalid_request` naming the field.
 * @example parseAgeBoost({ interval: '5m' }) // { interval_ms: 300000 }
 */
export function parseAgeBoost(value: unknown): AgeBoost | undefined {
  if (value === undefined || value === null) return undefined;
  if (!isPlainObject(value)) invalidField('age_boost', 'an object of interval_ms or interval', value);
  const unknown = Object.keys(value).find((k) => k !== 'interval_ms' && k !== 'interval');
  if (unknown !== undefined) invalidField(`age_boost.${unknown}`, 'one of interval_ms, interval', value[unknown]);
  if (value.interval_ms !== undefined && value.interval !== undefined) invalidField('age_boost', 'interval_ms or interval, not both', value);
  if (value.interval_ms !== undefined && value.interval_ms !== null) {
    const ms = value.interval_ms;
    if (typeof ms !== 'number' || !isInterval(ms)) invalidField('age_boost.interval_ms', EXPECTED_INTERVAL, ms);
    return { interval_ms: ms };
  }
  if (value.interval !== undefined && value.interval !== null) {
    const ms = typeof value.interval === 'string' ? durationToMs(value.interval) : undefined;
    if (ms === undefined) invalidField('age_boost.interval', 'a duration such as "PT5M" or "5m"', value.interval);
    if (!isInterval(ms)) invalidField('age_boost.interval', EXPECTED_INTERVAL, value.interval);
    return { interval_ms: ms };
  }
  return undefined;
}
