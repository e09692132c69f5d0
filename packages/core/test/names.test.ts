import { describe, expect, it } from 'vitest';
import { checkJobType } from '../src/schemas/fields.js';
import { isQueueName } from '../src/schemas/patterns.js';
import { OjsError } from '../src/index.js';

// Both checks remember the last name they accepted; nothing but that exact name may pass on the memory.
describe('queue names and job types', () => {
  it('refuse a missing value before any name was accepted', () => {
    expect(isQueueName(undefined)).toBe(false);
    expect(() => checkJobType(undefined)).toThrow(OjsError);
  });

  it('refuse invalid names right after a valid one, and accept the valid one again', () => {
    for (let round = 0; round < 2; round++) {
      expect(isQueueName('emails')).toBe(true);
      expect(isQueueName('Emails')).toBe(false);
      expect(isQueueName(undefined)).toBe(false);
      expect(isQueueName('emails')).toBe(true);
      expect(checkJobType('email.send')).toBe('email.send');
      expect(() => checkJobType('Email.send')).toThrow(OjsError);
      expect(() => checkJobType(undefined)).toThrow(OjsError);
      expect(checkJobType('email.send')).toBe('email.send');
    }
  });

  it('compare by content, so an equal name built anew passes too', () => {
    expect(isQueueName('bulk')).toBe(true);
    expect(isQueueName(['bu', 'lk'].join(''))).toBe(true);
    expect(checkJobType('a.b')).toBe('a.b');
    expect(checkJobType(['a', 'b'].join('.'))).toBe('a.b');
  });
});
