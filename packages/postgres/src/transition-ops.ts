/** TransitionOp ↔ the JSON rows jobTransitionMany.sql reads, and its result rows ↔ TransitionResult. */
import type { JobState, TransitionOp, TransitionResult } from '@ojskit/core';
import { jobFromRow, summaryFromColumns, VERBATIM_KEYS } from './job-doc.js';

/** Envelope keys a transition never writes or removes: they identify the job or are set by `to`. */
const PROTECTED_KEYS: ReadonlySet<string> = new Set(['id', 'state']);

/** One op as jobTransitionMany.sql's `jsonb_to_recordset` reads it. */
export interface OpJson {
  i: number;
  id: string;
  from: readonly JobState[];
  to: JobState;
  attempt: number | null;
  worker: string | null;
  vu: number | null;
  dl: boolean | null;
  set: Record<string, unknown>;
  unset: string[];
  /** New `args` / `meta` / `result`, as JSON text (stored verbatim). */
  vset: Record<string, string>;
  xset: Record<string, unknown>;
  xunset: string[];
  summary: boolean;
}

/**
 * Encodes an op. `set` values that are `undefined` remove the key (as `unset` does); `x` values that are
 * `null` remove the field and `undefined` ones are ignored. A key both set and unset ends up removed.
 */
export function opJson(op: TransitionOp, i: number): OpJson {
  const unset = new Set<string>();
  for (const key of op.unset ?? []) if (!PROTECTED_KEYS.has(key)) unset.add(key);
  const set: Record<string, unknown> = {};
  const vset: Record<string, string> = {};
  for (const [key, value] of Object.entries(op.set ?? {})) {
    if (PROTECTED_KEYS.has(key)) continue;
    if (value === undefined) unset.add(key);
    else if (unset.has(key)) continue;
    else if (VERBATIM_KEYS.has(key)) vset[key] = JSON.stringify(value);
    else set[key] = value;
  }
  set['state'] = op.to;
  const xset: Record<string, unknown> = {};
  const xunset: string[] = [];
  for (const [key, value] of Object.entries(op.x ?? {})) {
    if (value === undefined) continue;
    if (value === null) xunset.push(key);
    else xset[key] = value;
  }
  const expect = op.expect;
  return {
    i,
    id: op.id,
    from: op.from,
    to: op.to,
    attempt: expect?.attempt ?? null,
    worker: expect?.workerId ?? null,
    vu: expect?.visibleUntil ?? null,
    dl: expect?.deadLetter ?? null,
    set,
    unset: [...unset],
    vset,
    xset,
    xunset,
    summary: op.returning === 'summary',
  };
}

/** A row of jobTransitionMany.sql. */
export interface TransitionRow {
  i: number;
  id: string;
  ok: boolean;
  from_state: string | null;
  state: string | null;
  doc: Record<string, unknown> | null;
  args: unknown;
  meta: unknown;
  result: string | null;
  type: string | null;
  queue: string | null;
  attempt: number | null;
  workflow_id: string | null;
}

/** The result of one op from its row. */
export function resultFromRow(row: TransitionRow): TransitionResult {
  if (!row.ok) {
    if (row.state === null) return { ok: false, state: null };
    return { ok: false, state: row.state as JobState, ...(row.doc ? { job: jobFromRow({ ...row, doc: row.doc }) } : {}) };
  }
  const from = row.from_state as JobState;
  if (row.doc === null) {
    return {
      ok: true,
      from,
      summary: summaryFromColumns({
        id: row.id,
        type: row.type!,
        queue: row.queue!,
        state: row.state!,
        attempt: row.attempt!,
        workflow_id: row.workflow_id,
      }),
    };
  }
  return { ok: true, from, job: jobFromRow({ ...row, doc: row.doc }) };
}

/**
 * Splits ops into rounds with distinct ids: one UPDATE cannot apply two changes to one row, so a repeated
 * id waits for the next round (in op order, as sequential calls would).
 */
export function roundsByDistinctId(ops: readonly TransitionOp[]): number[][] {
  const rounds: number[][] = [];
  const seen = new Map<string, number>();
  ops.forEach((op, index) => {
    const round = seen.get(op.id) ?? 0;
    seen.set(op.id, round + 1);
    (rounds[round] ??= []).push(index);
  });
  return rounds;
}
