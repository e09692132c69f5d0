/** TransitionOp ↔ the JSON records jobTransitionMany.sql reads, and its result rows ↔ TransitionResult. */
import type { JobState, TransitionOp, TransitionResult } from '@ojskit/core';
import { ENVELOPE_BY_KEY, INTERNAL_BY_KEY } from './job-columns.js';
import { jobFromRow, summaryFromRow, type JobRow } from './job-row.js';

/** Envelope keys a transition never writes or removes: they identify the job or are set by `to`. */
const PROTECTED_KEYS: ReadonlySet<string> = new Set(['id', 'state']);

/** One op as jobTransitionMany.sql's `json_to_recordset` reads it; empty parts are left out. */
export interface OpJson {
  i: number;
  id: string;
  from: readonly JobState[];
  to: JobState;
  attempt?: number;
  worker?: string;
  vu?: number;
  dl?: boolean;
  /** Envelope columns to set (json columns as JSON text) / to clear. */
  s?: Record<string, unknown>;
  u?: string[];
  /** Internal columns to set / to clear. */
  x?: Record<string, unknown>;
  xu?: string[];
  /** Other envelope fields (doc) to set / remove. */
  ds?: Record<string, unknown>;
  du?: string[];
  /** Other internals (x_rest) to set / remove. */
  xs?: Record<string, unknown>;
  xsu?: string[];
}

/**
 * Encodes an op. `set` values that are `undefined` remove the key (as `unset` does); `x` values that are
 * `null` remove the field and `undefined` ones are ignored. A key both set and unset ends up removed.
 */
export function opJson(op: TransitionOp, i: number): OpJson {
  const out: OpJson = { i, id: op.id, from: op.from, to: op.to };
  const removed = new Set<string>();
  for (const key of op.unset ?? []) if (!PROTECTED_KEYS.has(key)) removed.add(key);
  for (const [key, value] of Object.entries(op.set ?? {})) {
    if (PROTECTED_KEYS.has(key)) continue;
    if (value === undefined) removed.add(key);
    if (value === undefined || removed.has(key)) continue;
    const column = ENVELOPE_BY_KEY.get(key);
    if (column !== undefined) (out.s ??= {})[key] = column.type === 'json' ? JSON.stringify(value) : value;
    else (out.ds ??= {})[key] = value;
  }
  for (const key of removed) {
    if (ENVELOPE_BY_KEY.has(key)) (out.u ??= []).push(key);
    else (out.du ??= []).push(key);
  }
  for (const [key, value] of Object.entries(op.x ?? {})) {
    if (value === undefined) continue;
    const column = INTERNAL_BY_KEY.get(key);
    if (value === null) {
      if (column !== undefined) (out.xu ??= []).push(key);
      else (out.xsu ??= []).push(key);
    } else if (column !== undefined) (out.x ??= {})[key] = column.type === 'json' ? JSON.stringify(value) : value;
    else (out.xs ??= {})[key] = value;
  }
  const expect = op.expect;
  if (expect?.attempt !== undefined) out.attempt = expect.attempt;
  if (expect?.workerId !== undefined) out.worker = expect.workerId;
  if (expect?.visibleUntil !== undefined) out.vu = expect.visibleUntil;
  if (expect?.deadLetter !== undefined) out.dl = expect.deadLetter;
  return out;
}

/** A row of jobTransitionMany.sql: the envelope columns, or only the summary ones (`#summary` rendering). */
export type TransitionRow = JobRow & { i: number; from_state: string | null };

/** The statement rendering for a batch: summary columns only when no op wants the job back. */
export function transitionStatement(ops: readonly TransitionOp[]): 'jobTransitionMany#summary' | 'jobTransitionMany#job' {
  return ops.every((op) => op.returning === 'summary') ? 'jobTransitionMany#summary' : 'jobTransitionMany#job';
}

/** The result of a winning op from its row. */
export function wonResult(op: TransitionOp, row: TransitionRow): TransitionResult {
  const from = row.from_state as JobState;
  return op.returning === 'summary' ? { ok: true, from, summary: summaryFromRow(row) } : { ok: true, from, job: jobFromRow(row) };
}

/** The result of a losing op from the job's current row (undefined: no such job). */
export function lostResult(current: JobRow | undefined): TransitionResult {
  if (current === undefined) return { ok: false, state: null };
  return { ok: false, state: current.state as JobState, job: jobFromRow(current) };
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
