/**
 * TransitionOp ↔ what jobTransitionMany.sql reads, and its result rows ↔ TransitionResult.
 *
 * An op becomes a flat record plus a *shape*: which columns it sets and clears, whether it touches `doc` or
 * `x_rest`, which guards it carries, and what it returns. Ops of one shape run as one statement rendered for
 * that shape (a plain assignment list, cached and prepared once per connection); the engine's batches (ACKs,
 * FAILs of one kind) have one or two shapes.
 */
import { createHash } from 'node:crypto';
import { TERMINAL_STATES, TRANSITIONS, type JobState, type TransitionNote, type TransitionOp, type TransitionResult } from '@ojskit/core/driver';
import { ENVELOPE_BY_KEY, INTERNAL_BY_KEY, movedValues, type Column } from './job-columns.js';
import { jobFromRow, type JobRow, type RowReader } from './job-row.js';
import { historyLineSql, historyPush } from './history-sql.js';

/** Envelope keys a transition never writes or removes: they identify the job or are set by `to`. */
const PROTECTED_KEYS: ReadonlySet<string> = new Set(['id', 'state']);

const FINISHED: ReadonlySet<string> = new Set(TERMINAL_STATES);

/**
 * Which tables an op's row may go between (jobTransitionMany.sql): `kept` unfinished → unfinished (UPDATE
 * jobs), `finish` unfinished → finished (DELETE from jobs, INSERT into jobs_finished), `revive` finished →
 * unfinished, `amend` finished → the same finished state (UPDATE jobs_finished).
 */
export interface OpRoutes {
  kept: boolean;
  finish: boolean;
  revive: boolean;
  amend: boolean;
}

/** The routes of an op, from the tables its `from` states live in and the table its `to` state lives in. */
export function routesOf(op: Pick<TransitionOp, 'from' | 'to'>): OpRoutes {
  let fromHot = false;
  let fromFinished = false;
  for (const state of op.from)
    if (FINISHED.has(state)) fromFinished = true;
    else fromHot = true;
  const toFinished = FINISHED.has(op.to);
  return { kept: fromHot && !toFinished, finish: fromHot && toFinished, revive: fromFinished && !toFinished, amend: fromFinished && toFinished };
}

function routesKey(routes: OpRoutes): string {
  return `${routes.kept ? 'k' : ''}${routes.finish ? 'f' : ''}${routes.revive ? 'r' : ''}${routes.amend ? 'a' : ''}`;
}

/** What an op's statement looks like, as data. */
export interface OpShape {
  routes: OpRoutes;
  set: Column[];
  clear: Column[];
  doc: boolean;
  rest: boolean;
  guards: Array<'attempt' | 'worker' | 'vu' | 'dl'>;
  returning: 'job' | 'summary';
}

export interface EncodedOp {
  record: Record<string, unknown>;
  shape: OpShape;
  /** Identifies the shape (ops with equal keys share a statement). */
  key: string;
}

/**
 * The note of an op that changes state without one (the engine sets one on each; a caller of the driver alone
 * may not): the trigger of the table's first row into `to` from a state the op allows, no instant.
 */
function noteFor(op: TransitionOp): TransitionNote {
  if (op.note !== undefined) return op.note;
  const row = TRANSITIONS.find((t) => t.to === op.to && t.from !== null && op.from.includes(t.from));
  return { at: '', trigger: row?.trigger ?? 'push' };
}

/**
 * Encodes an op. `set` values that are `undefined` remove the key (as `unset` does); `x` values that are
 * `null` remove the field and `undefined` ones are ignored. A key both set and unset ends up removed.
 */
export function encodeOp(op: TransitionOp, i: number): EncodedOp {
  const note = noteFor(op);
  // the history note (n_*): written only when the op changes the job's state (history-sql.ts)
  const record: Record<string, unknown> = { i, id: op.id, from: op.from, to: op.to, n_at: note.at, n_trigger: note.trigger };
  if (note.reason !== undefined) record['n_reason'] = note.reason;
  const set: Column[] = [];
  const clear: Column[] = [];
  let ds: Record<string, unknown> | undefined;
  let du: string[] | undefined;
  let xs: Record<string, unknown> | undefined;
  let xsu: string[] | undefined;
  const patch = op.set as Record<string, unknown> | undefined;

  // Removed keys: `unset`, and `set` keys whose value is undefined. A removal wins over a value set.
  const removed = new Set<string>();
  for (const key of op.unset ?? []) if (!PROTECTED_KEYS.has(key)) removed.add(key);
  if (patch !== undefined) for (const key in patch) if (patch[key] === undefined && !PROTECTED_KEYS.has(key)) removed.add(key);
  if (patch !== undefined) {
    for (const key in patch) {
      const value = patch[key];
      if (value === undefined || PROTECTED_KEYS.has(key) || removed.has(key)) continue;
      const column = ENVELOPE_BY_KEY.get(key);
      if (column === undefined) (ds ??= {})[key] = value;
      else {
        set.push(column);
        record[`s_${column.column}`] = column.type === 'json' ? JSON.stringify(value) : value;
      }
    }
  }
  for (const key of removed) {
    const column = ENVELOPE_BY_KEY.get(key);
    if (column === undefined) (du ??= []).push(key);
    else clear.push(column);
  }
  const x = op.x as Record<string, unknown> | undefined;
  if (x !== undefined) {
    for (const key in x) {
      const value = x[key];
      if (value === undefined) continue;
      const column = INTERNAL_BY_KEY.get(key);
      if (value === null) {
        if (column === undefined) (xsu ??= []).push(key);
        else clear.push(column);
      } else if (column === undefined) (xs ??= {})[key] = value;
      else {
        set.push(column);
        record[`s_${column.column}`] = column.type === 'json' ? JSON.stringify(value) : value;
      }
    }
  }
  const doc = ds !== undefined || du !== undefined;
  const rest = xs !== undefined || xsu !== undefined;
  if (doc) {
    record['ds'] = ds ?? {};
    record['du'] = du ?? [];
  }
  if (rest) {
    record['xs'] = xs ?? {};
    record['xsu'] = xsu ?? [];
  }

  let guardKey = '';
  const guards: OpShape['guards'] = [];
  const expect = op.expect;
  if (expect !== undefined) {
    if (expect.attempt !== undefined) {
      guards.push('attempt');
      record['attempt'] = expect.attempt;
      guardKey += 'a';
    }
    if (expect.workerId !== undefined) {
      guards.push('worker');
      record['worker'] = expect.workerId;
      guardKey += 'w';
    }
    if (expect.visibleUntil !== undefined) {
      guards.push('vu');
      record['vu'] = expect.visibleUntil;
      guardKey += 'v';
    }
    if (expect.deadLetter !== undefined) {
      guards.push('dl');
      record['dl'] = expect.deadLetter;
      guardKey += 'd';
    }
  }
  // The shape's identity: columns in the order the op named them (the same producer names them the same
  // way, so a batch shares one statement); the statement text sorts nothing and needs no more.
  let key = '';
  for (const c of set) key += `${c.column},`;
  key += '|';
  for (const c of clear) key += `${c.column},`;
  const routes = routesOf(op);
  key += `|${doc ? 'd' : ''}${rest ? 'r' : ''}|${guardKey}|${op.returning === 'summary' ? 's' : 'j'}|${routesKey(routes)}`;
  return { record, shape: { routes, set, clear, doc, rest, guards, returning: op.returning === 'summary' ? 'summary' : 'job' }, key };
}

/** Which guards an op carries, as bits (attempt 1, worker 2, visibleUntil 4, deadLetter 8). */
function guardBits(op: TransitionOp): number {
  const expect = op.expect;
  if (expect === undefined) return 0;
  return (
    (expect.attempt !== undefined ? 1 : 0) |
    (expect.workerId !== undefined ? 2 : 0) |
    (expect.visibleUntil !== undefined ? 4 : 0) |
    (expect.deadLetter !== undefined ? 8 : 0)
  );
}

/** Record fields that differ between the ops of a batch sharing their patch objects. */
const PER_OP_FIELDS: ReadonlySet<string> = new Set(['i', 'id', 'attempt', 'worker', 'vu', 'dl']);

/**
 * Encodes the ops of a batch as JSON records, each in two parts: its own fields (index, id, guard values) and
 * the fields it shares with the ops made from the same patches (`from`, `to`, the values it sets, the history
 * note). A batch's ops usually share their patch objects (every ACK of one instant points at the same `set`,
 * `unset` and `x`): an op sharing them with the previous one, and carrying the same guards, has its shape and
 * its shared part worked out already, the very same string, so the caller sends that part once for all of
 * them (jobTransitionMany.sql joins the two back).
 */
export class OpEncoder {
  private last: TransitionOp | undefined;
  private lastGuards = 0;
  private shape: OpShape | undefined;
  private key = '';
  /** The JSON object of the members shared by the ops like the last one. */
  private shared = '';

  /** `text`: the op's own fields as a JSON object; `shared`: the rest, the same string for ops sharing it. */
  encode(op: TransitionOp, i: number): { text: string; shared: string; shape: OpShape; key: string } {
    const last = this.last;
    const guards = guardBits(op);
    if (
      last === undefined ||
      op.set !== last.set ||
      op.unset !== last.unset ||
      op.x !== last.x ||
      op.from !== last.from ||
      op.to !== last.to ||
      op.returning !== last.returning ||
      op.note !== last.note ||
      guards !== this.lastGuards
    ) {
      const { record, shape, key } = encodeOp(op, i);
      const shared: Record<string, unknown> = {};
      for (const field in record) if (!PER_OP_FIELDS.has(field)) shared[field] = record[field];
      this.last = op;
      this.lastGuards = guards;
      this.shape = shape;
      this.key = key;
      this.shared = JSON.stringify(shared);
    }
    let text = `{"i":${i},"id":${JSON.stringify(op.id)}`;
    const expect = op.expect;
    if (expect !== undefined) {
      if (expect.attempt !== undefined) text += `,"attempt":${JSON.stringify(expect.attempt)}`;
      if (expect.workerId !== undefined) text += `,"worker":${JSON.stringify(expect.workerId)}`;
      if (expect.visibleUntil !== undefined) text += `,"vu":${JSON.stringify(expect.visibleUntil)}`;
      if (expect.deadLetter !== undefined) text += `,"dl":${JSON.stringify(expect.deadLetter)}`;
    }
    return { text: `${text}}`, shared: this.shared, shape: this.shape!, key: this.key };
  }
}

const GUARD_FIELDS: Record<OpShape['guards'][number], { field: string; condition: string }> = {
  attempt: { field: 'attempt int', condition: 'AND j.attempt = o.attempt' },
  worker: { field: 'worker text', condition: 'AND (j.worker_id IS NULL OR j.worker_id = o.worker)' },
  vu: { field: 'vu float8', condition: 'AND j.x_visible_until = o.vu' },
  dl: { field: 'dl boolean', condition: 'AND COALESCE(j.x_dead_letter, false) = o.dl' },
};

/**
 * The history columns of row `row` (`j` updated in place, `g` moving tables) after an op of `shape` changed its
 * state: the line's attempt and worker as the op leaves them, the worker that held the job when it clears it.
 */
function historyOf(shape: OpShape, row: string): { history: string; history_dropped: string } {
  const sets = (column: string) => shape.set.some((c) => c.column === column);
  const line = historyLineSql({
    at: 'o.n_at',
    from: `${row}.state`,
    to: 'o."to"',
    trigger: 'o.n_trigger',
    attempt: sets('attempt') ? 'o.s_attempt' : `${row}.attempt`,
    worker: sets('worker_id') ? `COALESCE(o.s_worker_id, ${row}.worker_id)` : `${row}.worker_id`,
    reason: 'o.n_reason',
  });
  return historyPush(row, line);
}

/** The statement (name and template values) for ops of one shape; `history`: its moves append history lines. */
export function shapeStatement(
  shape: OpShape,
  key: string,
  returning: { job: string; summary: string },
  history = true,
): { name: string; values: () => Record<string, string> } {
  const name = `jobTransitionMany#${createHash('sha1').update(key).digest('hex').slice(0, 16)}`;
  const values = (): Record<string, string> => {
    const sqlType = (c: Column) => (c.type === 'json' ? 'text' : c.type);
    const record = ['i int', 'id text', 'sg int', ...shape.guards.map((g) => GUARD_FIELDS[g].field)];
    const shared = [
      'sg int',
      '"from" jsonb',
      '"to" text',
      ...shape.set.map((c) => `s_${c.column} ${sqlType(c)}`),
      ...(shape.doc ? ['ds jsonb', 'du text[]'] : []),
      ...(shape.rest ? ['xs jsonb', 'xsu text[]'] : []),
      ...(history ? ['n_at text', 'n_trigger text', 'n_reason text'] : []),
    ];
    const assignments = [
      ...shape.set.map((c) => `${c.column} = o.s_${c.column}${c.type === 'json' ? '::json' : ''}`),
      ...shape.clear.map((c) => `${c.column} = NULL`),
      ...(shape.doc ? ['doc = (j.doc - o.du) || o.ds'] : []),
      ...(shape.rest ? ["x_rest = NULLIF((COALESCE(j.x_rest, '{}'::jsonb) - o.xsu) || o.xs, '{}'::jsonb)"] : []),
    ];
    // In place (kept, amend): a line only when the state changes; a move between the tables always changes it.
    if (history && shape.routes.kept) {
      for (const [column, value] of Object.entries(historyOf(shape, 'j')))
        assignments.push(`${column} = CASE WHEN j.state = o."to" THEN j.${column} ELSE ${value} END`);
    }
    // A row moving between the tables is inserted whole: each column from the deleted row `g`, or as the op sets it.
    const changes: Record<string, string> = { state: 'o."to"', prev_state: 'g.state' };
    for (const c of shape.set) changes[c.column] = `o.s_${c.column}${c.type === 'json' ? '::json' : ''}`;
    for (const c of shape.clear) changes[c.column] = 'NULL';
    if (shape.doc) changes['doc'] = '(g.doc - o.du) || o.ds';
    if (shape.rest) changes['x_rest'] = "NULLIF((COALESCE(g.x_rest, '{}'::jsonb) - o.xsu) || o.xs, '{}'::jsonb)";
    if (history) Object.assign(changes, historyOf(shape, 'g'));
    const revived = { ...changes, seq: `CASE WHEN o."to" IN ({{claimable_states}}) THEN nextval('{{schema}}.job_seq') ELSE g.seq END` };
    return {
      route_kept: String(shape.routes.kept),
      route_finish: String(shape.routes.finish),
      route_revive: String(shape.routes.revive),
      route_amend: String(shape.routes.amend),
      moved_values: movedValues('g', changes),
      revived_values: movedValues('g', revived),
      op_record: record.join(', '),
      shared_record: shared.join(', '),
      assignments: assignments.map((a) => `${a},\n    `).join(''),
      guards: shape.guards.map((g) => GUARD_FIELDS[g].condition).join('\n    '),
      transition_returning: shape.returning === 'summary' ? returning.summary : returning.job,
    };
  };
  return { name, values };
}

/** The results of the ops that won, from the rows of jobTransitionMany.sql (as arrays, see RowReader). */
export function wonResults(ops: readonly TransitionOp[], rows: readonly unknown[][], read: RowReader, results: TransitionResult[]): void {
  const iAt = read.at('i');
  const fromAt = read.at('from_state');
  for (const row of rows) {
    const i = row[iAt] as number;
    const from = row[fromAt] as JobState;
    const op = ops[i]!;
    // A winning op moved its job (`j.id = o.id`) to its `to`.
    results[i] = op.returning === 'summary' ? { ok: true, from, summary: read.summary(row, op.id, op.to) } : { ok: true, from, job: read.job(row) };
  }
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
