/** Validation of a queue configuration's `age_boost` (spec/admin.md, "Age boost"). */
import { durationToMs } from '../formats/durations.js';
import { AGE_BOOST_MAX_INTERVAL_MS, AGE_BOOST_MIN_INTERVAL_MS, type AgeBoost } from './age-boost.js';
import { invalidField, isPlainObject } from '../schemas/fields.js';

const EXPECTED_INTERVAL = `a whole number of ms from ${AGE_BOOST_MIN_INTERVAL_MS} to ${AGE_BOOST_MAX_INTERVAL_MS} (30 days)`;

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
  let ms: number | undefined;
  if (value.interval_ms !== undefined && value.interval_ms !== null) {
    ms = value.interval_ms as number;
    if (typeof ms !== 'number' || !Number.isInteger(ms)) invalidField('age_boost.interval_ms', EXPECTED_INTERVAL, value.interval_ms);
  } else if (value.interval !== undefined && value.interval !== null) {
    ms = typeof value.interval === 'string' ? durationToMs(value.interval) : undefined;
    if (ms === undefined) invalidField('age_boost.interval', 'a duration such as "PT5M" or "5m"', value.interval);
  }
  if (ms === undefined) return undefined;
  if (!(ms >= AGE_BOOST_MIN_INTERVAL_MS && ms <= AGE_BOOST_MAX_INTERVAL_MS) || !Number.isInteger(ms)) {
    invalidField(value.interval_ms !== undefined ? 'age_boost.interval_ms' : 'age_boost.interval', EXPECTED_INTERVAL, value.interval_ms ?? value.interval);
  }
  return { interval_ms: ms };
}
