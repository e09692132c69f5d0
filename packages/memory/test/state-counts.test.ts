import { describe, expect, it } from 'vitest';
import { JOB_STATES } from '@ojskit/core/driver';
import { addCount, zeroCounts } from '../src/state-counts.js';

describe('addCount', () => {
  it('moves the counter of each state, and only that one', () => {
    for (const state of JOB_STATES) {
      const counts = zeroCounts();
      addCount(counts, state, 3);
      addCount(counts, state, -1);
      for (const other of JOB_STATES) expect(counts[other]).toBe(other === state ? 2 : 0);
      expect(Object.keys(counts)).toEqual([...JOB_STATES]);
    }
  });
});
