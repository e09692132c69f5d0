/** The diagram's layout is derived from core's table alone. */
import { JOB_STATES, isTerminal } from '@ojskit/core';
import { TRANSITIONS } from '@ojskit/core/lifecycle';
import { describe, expect, it } from 'vitest';
import { NEW_NODE, computeLayout, edgeKey, edgesFromTable, pathThrough, pointAt } from '../../src/lifecycle/layout.js';

describe('lifecycle layout', () => {
  const layout = computeLayout();

  it('has one node per state plus the new-job source, terminal exactly where core says', () => {
    expect(layout.nodes.map((n) => n.id)).toEqual([NEW_NODE, ...JOB_STATES]);
    for (const node of layout.nodes) expect(node.terminal).toBe(node.id !== NEW_NODE && isTerminal(node.id));
  });

  it('has one edge per (from, to) pair of the table, carrying every trigger and rule of its rows', () => {
    const pairs = new Set(TRANSITIONS.map((t) => edgeKey(t.from, t.to)));
    expect(layout.edges.map((e) => e.key).sort()).toEqual([...pairs].sort());
    for (const row of TRANSITIONS) {
      const edge = layout.edges.find((e) => e.key === edgeKey(row.from, row.to))!;
      expect(edge.triggers).toContain(row.trigger);
      expect(edge.rules).toContain(row.rule);
    }
    const rescue = edgesFromTable().find((e) => e.key === 'active->available')!;
    expect(rescue.triggers).toEqual(['requeue', 'visibility_timeout', 'worker_death']);
  });

  it('places nodes apart inside the drawing and routes each edge from its source to its target', () => {
    for (const a of layout.nodes) {
      expect(a.x - a.width / 2).toBeGreaterThanOrEqual(0);
      expect(a.x + a.width / 2).toBeLessThanOrEqual(layout.width);
      for (const b of layout.nodes) {
        if (a === b) continue;
        const overlap = Math.abs(a.x - b.x) < (a.width + b.width) / 2 && Math.abs(a.y - b.y) < (a.height + b.height) / 2;
        expect(overlap, `${a.id} overlaps ${b.id}`).toBe(false);
      }
    }
    const byId = new Map(layout.nodes.map((n) => [n.id, n]));
    for (const edge of layout.edges) {
      expect(edge.points.length).toBeGreaterThanOrEqual(2);
      const near = (p: { x: number; y: number }, id: string): boolean => {
        const n = byId.get(id as never)!;
        return Math.abs(p.x - n.x) <= n.width / 2 + 1 && Math.abs(p.y - n.y) <= n.height / 2 + 1;
      };
      expect(near(edge.points[0]!, edge.from), `${edge.key} starts at ${edge.from}`).toBe(true);
      expect(near(edge.points[edge.points.length - 1]!, edge.to), `${edge.key} ends at ${edge.to}`).toBe(true);
      expect(edge.path.startsWith('M')).toBe(true);
    }
  });

  it('pointAt walks a polyline by length; pathThrough draws through its points', () => {
    const points = [
      { x: 0, y: 0 },
      { x: 10, y: 0 },
      { x: 10, y: 30 },
    ];
    expect(pointAt(points, 0)).toEqual({ x: 0, y: 0 });
    expect(pointAt(points, 0.125)).toEqual({ x: 5, y: 0 });
    expect(pointAt(points, 0.5)).toEqual({ x: 10, y: 10 });
    expect(pointAt(points, 1)).toEqual({ x: 10, y: 30 });
    expect(pointAt(points, 7)).toEqual({ x: 10, y: 30 });
    expect(
      pathThrough([
        { x: 0, y: 0 },
        { x: 5, y: 5 },
      ]),
    ).toBe('M0,0 L5,5');
    expect(pathThrough(points)).toBe('M0,0 Q10,0 10,15 L10,30');
  });
});
