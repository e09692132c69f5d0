import { describe, expect, it } from 'vitest';
import { nextMinuteMatching, zonedFields } from '../src/support/zoned-time.js';

describe('zoned time oracle', () => {
  it('reads local fields in a zone', () => {
    expect(zonedFields(Date.UTC(2026, 0, 1, 14, 30), 'America/New_York')).toMatchObject({ year: 2026, month: 1, day: 1, hour: 9, minute: 30, weekday: 4 });
  });

  it('finds the first matching minute strictly after an instant', () => {
    const at = Date.UTC(2026, 6, 1, 12, 0);
    expect(nextMinuteMatching(at, 'UTC', (f) => f.minute % 5 === 0)).toBe(Date.UTC(2026, 6, 1, 12, 5));
    // 09:00 in New York in July is 13:00 UTC (daylight time).
    expect(nextMinuteMatching(at, 'America/New_York', (f) => f.hour === 9 && f.minute === 0)).toBe(Date.UTC(2026, 6, 1, 13, 0));
  });
});
