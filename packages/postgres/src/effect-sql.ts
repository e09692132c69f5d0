/**
 * Core's transition effects (`EFFECTS`) as SQL SET assignments, for the moves a statement makes itself (claim,
 * promotion, expiry): the statements never spell out which columns a move writes, so they cannot drift from
 * the memory and Redis drivers.
 */
import { DISPATCH_EFFECTS, EFFECTS, TRANSITIONS, type TransitionEffect } from '@ojskit/core/driver';
import { ENVELOPE_BY_KEY, INTERNAL_BY_KEY, movedValues } from './job-columns.js';
import { sqlLiteral } from './sql-literal.js';
import { historyLineSql, historyOffSql, historyPush } from './history-sql.js';

/** The trigger of an insert: the table's rows from no state. */
const INSERT_TRIGGER = TRANSITIONS.find((t) => t.from === null)!.trigger;

/** Where a statement has the instant and the values an effect assigns (`assign`/`xAssign` keys). */
interface EffectParams {
  /** The instant in epoch ms, as SQL (`$1::float8`). */
  now: string;
  /** The instant as RFC 3339 text (`$2::text`). */
  nowIso: string;
  /** An SQL expression per assigned field; a field the effect assigns but this map lacks is an error. */
  assigned?: Record<string, string>;
}

function column(key: string, internal: boolean): string {
  const c = (internal ? INTERNAL_BY_KEY : ENVELOPE_BY_KEY).get(key);
  if (c === undefined) throw new Error(`@ojskit/postgres: an effect writes ${internal ? 'x.' : ''}${key}, which has no column of its own`);
  return c.column;
}

/** The internals an effect removes that live in `x_rest` (no column of their own, e.g. the dispatch marker). */
function restUnset(effect: TransitionEffect): string[] {
  return effect.xUnset.filter((key) => !INTERNAL_BY_KEY.has(key));
}

/** Column → SQL value of `effect` on row `j`, in a stable order: state, envelope fields, then internals. */
export function effectColumns(effect: TransitionEffect, p: EffectParams): Map<string, string> {
  const out = new Map<string, string>([['state', sqlLiteral(effect.to)]]);
  const assigned = (key: string, internal: boolean) => {
    const value = p.assigned?.[key];
    if (value === undefined)
      throw new Error(`@ojskit/postgres: the ${effect.trigger} effect assigns ${internal ? 'x.' : ''}${key}; the statement gives no value for it`);
    return value;
  };
  if (effect.attempt === 'increment') out.set('attempt', 'j.attempt + 1');
  for (const key of effect.stamp) out.set(column(key, false), p.nowIso);
  for (const key of effect.assign) out.set(column(key, false), assigned(key, false));
  for (const key of effect.unset) out.set(column(key, false), 'NULL');
  for (const key of effect.xStamp) out.set(column(key, true), p.now);
  for (const key of effect.xAssign) out.set(column(key, true), assigned(key, true));
  for (const key of effect.xUnset) if (INTERNAL_BY_KEY.has(key)) out.set(column(key, true), 'NULL');
  const rest = restUnset(effect);
  if (rest.length > 0) out.set('x_rest', `NULLIF(COALESCE(j.x_rest, '{}'::jsonb) - ${textArrayLiteral(rest)}, '{}'::jsonb)`);
  return out;
}

/** `col = value` lines of one effect. */
export function effectSet(effect: TransitionEffect, p: EffectParams): string {
  return [...effectColumns(effect, p)].map(([col, value]) => `${col} = ${value}`).join(',\n  ');
}

/**
 * `col = CASE WHEN cond THEN … ELSE … END` lines: `whenTrue` where `cond` holds, else `otherwise`; a column only
 * one of them writes keeps its value (`j.col`) in the other case.
 */
export function effectSetEither(cond: string, whenTrue: TransitionEffect, otherwise: TransitionEffect, p: EffectParams, indent = '    '): string {
  const a = effectColumns(whenTrue, p);
  const b = effectColumns(otherwise, p);
  const columns = [...new Set([...a.keys(), ...b.keys()])];
  return columns.map((col) => `${col} = CASE WHEN ${cond} THEN ${a.get(col) ?? `j.${col}`} ELSE ${b.get(col) ?? `j.${col}`} END`).join(`,\n${indent}`);
}

/**
 * The history columns of row `row` after the move by `effect` at `nowIso` (history-sql.ts), given the columns
 * the effect writes: the attempt and worker after the move, else the worker that held the job before.
 */
function historyOf(effect: TransitionEffect, row: string, nowIso: string, columns: Map<string, string>): { history: string; history_dropped: string } {
  const worker = columns.get('worker_id');
  const line = historyLineSql({
    at: nowIso,
    from: `${row}.state`,
    to: sqlLiteral(effect.to),
    trigger: sqlLiteral(effect.trigger),
    attempt: columns.get('attempt') ?? `${row}.attempt`,
    worker: worker === undefined || worker === 'NULL' ? `${row}.worker_id` : `COALESCE(${worker}, ${row}.worker_id)`,
  });
  return historyPush(row, line);
}

/** effectSet, and the history line of the move when `history` (history-sql.ts). */
function effectSetWithHistory(effect: TransitionEffect, p: EffectParams, history: boolean): string {
  const columns = effectColumns(effect, p);
  if (history) for (const [col, value] of Object.entries(historyOf(effect, 'j', p.nowIso, columns))) columns.set(col, value);
  return [...columns].map(([col, value]) => `${col} = ${value}`).join(',\n  ');
}

/**
 * The select list of a row moving to `jobs_finished` by `effect` (an expiry: the claim's, the promoter's, the
 * expirer's), from the deleted row `g`, with the instant in `p.now_ms` / `p.now_iso` (see movedValues).
 */
function moveValues(effect: TransitionEffect, history: boolean): string {
  const changes: Record<string, string> = { prev_state: 'g.state' };
  const columns = new Map<string, string>();
  for (const [col, value] of effectColumns(effect, { now: 'p.now_ms', nowIso: 'p.now_iso' })) columns.set(col, value.replace(/\bj\./g, 'g.'));
  for (const [col, value] of columns) changes[col] = value;
  if (history) Object.assign(changes, historyOf(effect, 'g', 'p.now_iso', columns));
  return movedValues('g', changes);
}

/** `ARRAY['a', 'b']::text[]`. */
function textArrayLiteral(values: readonly string[]): string {
  return `ARRAY[${values.map(sqlLiteral).join(', ')}]::text[]`;
}

/**
 * The effect fragments the statements are rendered with, each named for the statement and the move; with
 * `history`, each also appends the move's history line.
 */
export function effectTemplateValues(history = true): Record<string, string> {
  const at = (now: string, nowIso: string) => ({ now: `${now}::float8`, nowIso: `${nowIso}::text` });
  // A claim's assigned fields: $3 worker, $4 now, $6 visibility or null (each job's own).
  const claimAssigned = {
    worker_id: '$3::text',
    claimVisibilityMs: 'COALESCE($6::float8, j.x_visibility_ms)',
    visibleUntil: '$4::float8 + COALESCE($6::float8, j.x_visibility_ms)',
    timeoutAt: '$4::float8 + j.x_timeout_ms',
  };
  return {
    // jobPromote.sql: $1 now, $2 now_iso (a due job past its expiry moves instead: expire_move_values).
    promote_set: effectSetWithHistory(EFFECTS.promote, at('$1', '$2'), history),
    // jobClaim.sql: $4 now, $5 now_iso; the promotion on the way, and the claim ($3 worker, $6 visibility or null).
    claim_promote_set: effectSetWithHistory(EFFECTS.promote, at('$4', '$5'), history),
    claim_set: effectSetWithHistory(EFFECTS.claim, { ...at('$4', '$5'), assigned: claimAssigned }, history),
    // jobClaim.sql, jobPromote.sql, jobExpire.sql: an expired job leaves the hot table (deleted row `g`).
    expire_move_values: moveValues(EFFECTS.expire, history),
    // jobClaimDispatched.sql (a dispatch log's store): the same parameters as jobClaim.sql, core's DISPATCH_EFFECTS.
    dispatch_claim_set: effectSetWithHistory(DISPATCH_EFFECTS.claim, { ...at('$4', '$5'), assigned: claimAssigned }, history),
    dispatch_expire_move_values: moveValues(DISPATCH_EFFECTS.expire, history),
    // jobInsert.sql: the first line of each new row `r` ($1 now_iso), or nothing.
    history_insert_column: history ? ', history' : '',
    history_insert_value: history
      ? `, CASE WHEN ${historyOffSql('r')} THEN NULL ELSE ARRAY[${historyLineSql({ at: '$1::text', from: "''", to: 'r.state', trigger: sqlLiteral(INSERT_TRIGGER), attempt: 'COALESCE(r.attempt, 0)', worker: 'r.worker_id' })}] END`
      : '',
  };
}
