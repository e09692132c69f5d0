/**
 * Lays the lifecycle out from core's transition table: one node per state (plus the "new job" source), one
 * edge per (from, to) pair carrying every trigger the table lists for it. Nothing here names a state.
 */
import { Graph, layout } from '@dagrejs/dagre';
import { JOB_STATES, isTerminal, type JobState } from '@ojskit/core';
import { TRANSITIONS, type Trigger } from '@ojskit/core/lifecycle';

/** The node a new job comes from (`from: null` rows). Not a state: it has no count and no token rests there. */
export const NEW_NODE = 'new';
export type NodeId = JobState | typeof NEW_NODE;

export interface LaidOutNode {
  readonly id: NodeId;
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
  readonly terminal: boolean;
}

export interface LaidOutEdge {
  /** `from->to`, the key events are matched against. */
  readonly key: string;
  readonly from: NodeId;
  readonly to: JobState;
  /** Every trigger of the table's rows for this pair, in table order. */
  readonly triggers: readonly Trigger[];
  /** The protocol's rule numbers for those rows. */
  readonly rules: readonly number[];
  /** Polyline through dagre's points, from the source's border to the target's. */
  readonly points: readonly { x: number; y: number }[];
  /** SVG path data for `points`. */
  readonly path: string;
}

export interface LifecycleLayout {
  readonly width: number;
  readonly height: number;
  readonly nodes: readonly LaidOutNode[];
  readonly edges: readonly LaidOutEdge[];
}

/** The key of the edge `from → to`; `null` (a new job) maps to the source node. */
export function edgeKey(from: JobState | null | undefined, to: JobState): string {
  return `${from ?? NEW_NODE}->${to}`;
}

const NODE_WIDTH = 112;
const NODE_HEIGHT = 40;

/** Groups the table's rows by (from, to), keeping table order. */
export function edgesFromTable(): { key: string; from: NodeId; to: JobState; triggers: Trigger[]; rules: number[] }[] {
  const byKey = new Map<string, { key: string; from: NodeId; to: JobState; triggers: Trigger[]; rules: number[] }>();
  for (const row of TRANSITIONS) {
    const key = edgeKey(row.from, row.to);
    let edge = byKey.get(key);
    if (!edge) byKey.set(key, (edge = { key, from: row.from ?? NEW_NODE, to: row.to, triggers: [], rules: [] }));
    if (!edge.triggers.includes(row.trigger)) edge.triggers.push(row.trigger);
    if (!edge.rules.includes(row.rule)) edge.rules.push(row.rule);
  }
  return [...byKey.values()];
}

/** Smooth-enough SVG path through the points (quadratic joints at the bends). */
export function pathThrough(points: readonly { x: number; y: number }[]): string {
  if (points.length === 0) return '';
  const [first, ...rest] = points;
  let d = `M${round(first!.x)},${round(first!.y)}`;
  if (rest.length === 0) return d;
  for (let i = 0; i < rest.length - 1; i++) {
    const p = rest[i]!;
    const q = rest[i + 1]!;
    d += ` Q${round(p.x)},${round(p.y)} ${round((p.x + q.x) / 2)},${round((p.y + q.y) / 2)}`;
  }
  const last = rest[rest.length - 1]!;
  return `${d} L${round(last.x)},${round(last.y)}`;
}

const round = (n: number): number => Math.round(n * 10) / 10;

/**
 * Runs dagre over the table. Edges into terminal states are given more weight so the "happy" ranks read
 * top to bottom; the retry loop and dead-letter retry come out as back edges.
 * @example computeLayout().nodes.length // 9: the eight states and the source
 */
export function computeLayout(): LifecycleLayout {
  const graph = new Graph({ multigraph: false });
  graph.setGraph({ rankdir: 'TB', nodesep: 36, ranksep: 56, edgesep: 14, marginx: 16, marginy: 16 });
  graph.setDefaultEdgeLabel(() => ({}));
  const ids: NodeId[] = [NEW_NODE, ...JOB_STATES];
  for (const id of ids) graph.setNode(id, { width: id === NEW_NODE ? 64 : NODE_WIDTH, height: NODE_HEIGHT });
  const table = edgesFromTable();
  for (const edge of table) graph.setEdge(edge.from, edge.to, { weight: edge.to === 'completed' ? 4 : 1, minlen: 1 });
  layout(graph);
  const nodes: LaidOutNode[] = ids.map((id) => {
    const n = graph.node(id);
    return { id, x: n.x, y: n.y, width: n.width, height: n.height, terminal: id !== NEW_NODE && isTerminal(id) };
  });
  const edges: LaidOutEdge[] = table.map((edge) => {
    const points = (graph.edge(edge.from, edge.to).points ?? []).map((p: { x: number; y: number }) => ({ x: p.x, y: p.y }));
    return { ...edge, points, path: pathThrough(points) };
  });
  const label = graph.graph();
  return { width: label.width ?? 600, height: label.height ?? 600, nodes, edges };
}

/** Point at fraction `t` (0..1) of the polyline's length: where a token is drawn. */
export function pointAt(points: readonly { x: number; y: number }[], t: number): { x: number; y: number } {
  if (points.length === 0) return { x: 0, y: 0 };
  if (points.length === 1) return points[0]!;
  const lengths: number[] = [];
  let total = 0;
  for (let i = 1; i < points.length; i++) {
    const a = points[i - 1]!;
    const b = points[i]!;
    const len = Math.hypot(b.x - a.x, b.y - a.y);
    lengths.push(len);
    total += len;
  }
  let target = Math.min(1, Math.max(0, t)) * total;
  for (let i = 0; i < lengths.length; i++) {
    const len = lengths[i]!;
    if (target <= len || i === lengths.length - 1) {
      const a = points[i]!;
      const b = points[i + 1]!;
      const f = len === 0 ? 0 : Math.min(1, target / len);
      return { x: a.x + (b.x - a.x) * f, y: a.y + (b.y - a.y) * f };
    }
    target -= len;
  }
  return points[points.length - 1]!;
}
