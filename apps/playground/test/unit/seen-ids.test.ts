import { describe, expect, it } from 'vitest';
import { SeenIds } from '../../src/live/seen-ids.js';

describe('SeenIds', () => {
  it('reports duplicates among the last `capacity` ids and forgets older ones', () => {
    const seen = new SeenIds(3);
    expect(['a', 'b', 'c'].map((id) => seen.add(id))).toEqual([true, true, true]);
    expect(seen.add('b')).toBe(false);
    expect(seen.add('d')).toBe(true);
    expect(seen.add('a')).toBe(true);
    expect(seen.add('d')).toBe(false);
  });
});
