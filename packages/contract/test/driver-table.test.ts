/** The driver suite's table cases are generated from core's table: every ordered pair of states, once, on the right side. */
import { describe, expect, it } from 'vitest';
import { JOB_STATES } from '@ojskit/core';
import { DISPATCH_TRANSITIONS, TRANSITIONS } from '@ojskit/core/lifecycle';
import { statePairs } from '../src/driver/cases/table.js';

describe('driver suite: generated table cases', () => {
  it('covers every ordered pair of distinct states once, legal exactly when TRANSITIONS has the edge', () => {
    const { legal, illegal, dispatch } = statePairs();
    const key = ([from, to]: readonly [string, string]) => `${from}>${to}`;
    const all = [...legal, ...illegal, ...dispatch].map(key);
    expect(new Set(all).size).toBe(all.length);
    expect(all.length).toBe(JOB_STATES.length * (JOB_STATES.length - 1));
    const edges = new Set(TRANSITIONS.filter((t) => t.from !== null && t.from !== t.to).map((t) => `${t.from}>${t.to}`));
    expect(new Set(legal.map(key))).toEqual(edges);
    for (const pair of illegal) expect(edges.has(key(pair))).toBe(false);
    const extension = new Set(DISPATCH_TRANSITIONS.filter((t) => t.from !== null && !edges.has(`${t.from}>${t.to}`)).map((t) => `${t.from}>${t.to}`));
    expect(new Set(dispatch.map(key))).toEqual(extension);
  });
});
