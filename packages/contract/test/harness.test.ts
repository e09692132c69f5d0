import { describe, expect, it } from 'vitest';
import { assertSkipReasons } from '../src/harness.js';

describe('assertSkipReasons', () => {
  it('accepts skips that carry a reason', () => {
    expect(() => assertSkipReasons('x', { 'cron.timezone': 'no IANA data on this platform' })).not.toThrow();
  });

  it('refuses a skip without a written reason', () => {
    expect(() => assertSkipReasons('x', { 'cron.timezone': '' })).toThrow(/no written reason/);
    expect(() => assertSkipReasons('x', { 'cron.timezone': '   ' })).toThrow(/cron.timezone/);
    expect(() => assertSkipReasons('x', { 'cron.timezone': true })).toThrow(/no written reason/);
  });
});
