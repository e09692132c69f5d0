/**
 * Encodes a batch of completions (`Driver.jobCompleteMany`, the hot path of a worker) as the ARGV of
 * job-complete-many.lua. The ops come from core's `completionOp` (EFFECTS.ack): ops of one instant share their
 * writes by identity, so each distinct set of writes (a shape) travels once.
 */
import { STATE_ROLES, type JobSummary, type JobState, type TransitionOp, type TransitionResult } from '@ojskit/core/driver';
import { decodeJob, encodeEnvelopeValue, HOT_FIELDS, hotAt, hotRank, hotStart, locateHot } from './codec.js';
import { opShape, pushShapedBatch, sameEntries, sameList } from './transition-args.js';
import { encodeHistoryLine } from './history-line.js';

/** Where an ACK moves a job, and the one state job-complete-many.lua moves it from. */
const COMPLETED = STATE_ROLES.completed;
const ACTIVE = STATE_ROLES.claimed;

/** Whether two completions share a shape for sure (their values behind it are equal, the result aside). */
function sameCompletionShape(a: TransitionOp, b: TransitionOp): boolean {
  if (a.returning !== b.returning || !sameList(a.from, b.from) || !sameList(a.unset, b.unset) || !sameEntries(a.x, b.x)) return false;
  if (a.note !== b.note && a.note?.at !== b.note?.at) return false;
  return a.set === b.set || sameEntries(a.set, b.set, 'result');
}

/** What a driver remembers of a job it claimed, until the job's next transition. */
export interface ClaimHint {
  queue: string;
  /** '@h' as the claim wrote it. */
  hot: string;
  /** False when the claim said the job's queue opts out of history: its ACK then sends no history line. */
  history?: boolean;
}

/** A completion sent as a compare-and-set of '@h' (see pushCompletionBatch): what the answer leaves out. */
export interface CasCompletion {
  queue: string;
  type: string;
  attempt: number;
}

/** Where the compare-and-set texts go (ARGV after the packed JSON) and, per op in order, what each left out. */
export interface CasArgs {
  raw: string[];
  ops: Array<CasCompletion | undefined>;
  /** Send each compare-and-set's history line too (the scripts append history). */
  history?: boolean;
}

const H_STATE = hotRank('state')!;
const H_ATTEMPT = hotRank('attempt')!;
const H_TYPE = hotRank('type')!;
const H_WORKER = hotRank('worker_id')!;
const HOT_COUNT = HOT_FIELDS.length;

/**
 * Appends the batch of completions to `out`. A shape ends with '1' when its ops want the job back in full
 * (`returning: 'job'`); a completed workflow member comes back in full whatever its shape says.
 *
 * With `cas`, a completion of a job this process claimed goes as a compare-and-set: '@h' as the claim wrote it
 * and '@h' as the completion leaves it, computed here, both as raw ARGV (cjson would decode them byte by
 * byte). The script writes the second when the stored '@h' is the first, which holds only while the job is
 * active with the attempt and worker of that claim: the guard, checked where the data lives, without
 * splitting and joining '@h' in Lua (~18k Redis instructions per job). Any other stored value (a heartbeat
 * moved the deadline, the job moved on) takes the script's usual path. With `cas.history`, the completion's
 * history line goes with the two texts (it depends on the same attempt and worker, and the shape's instant).
 */
export function pushCompletionBatch(
  ops: readonly TransitionOp[],
  out: Array<string | number>,
  claimOf: (id: string) => ClaimHint | undefined,
  cas?: CasArgs,
): void {
  // per shape number, the '@h' writes its completions make (rank, value, ...), as the script applies them
  const hotWrites: Array<Array<number | string>> = [];
  // per shape number, the ARGV index of each claimed '@h' sent so far: jobs claimed together mostly share one
  // (same instant, worker and deadline; the same type and enqueue instant when enqueued together), so each
  // distinct pair of texts goes once. Every byte of an ARGV costs Redis ~7 instructions to bring into Lua
  // (its strings are hashed whole), two '@h' ~2k per job; equal texts become one Lua string either way.
  const sent: Array<Map<string, CasSent | undefined>> = [];
  let lastShape: Array<string | number> = [];
  pushShapedBatch(ops, out, {
    // opShape: from, to, deadLetter, returning, nSet, pairs, nDel, fields; the script takes from, the
    // finishedAt score, nSet onwards, then whether to answer with the whole job
    shape: (op) => {
      const full = opShape(op, 'result');
      lastShape = [full[0]!, String(op.x!.finishedAt), ...full.slice(4), op.returning === 'summary' ? '' : '1', op.note?.at ?? ''];
      return lastShape;
    },
    sameShape: sameCompletionShape,
    pushOp: (op, n, args) => {
      const result = (op.set && 'result' in op.set && encodeEnvelopeValue('result', op.set.result)) || '';
      const claim = claimOf(op.id);
      let at: number | '' = '';
      if (cas) {
        let done: CasCompletion | undefined;
        if (claim) {
          // a queue that opts out of history: the texts go without the line, at a negative index
          const line = cas.history === true && claim.history !== false;
          const seen = (sent[n] ??= new Map());
          const key = line ? claim.hot : `\u0000${claim.hot}`;
          let entry = seen.get(key);
          if (entry === undefined && !seen.has(key)) {
            const after = casAfter(claim.hot, (hotWrites[n] ??= shapeHotWrites(lastShape)));
            entry = after && { at: 0, after };
            seen.set(key, entry);
          }
          done = entry && casGuarded(op, claim, entry.after);
          if (done) {
            if (entry!.at === 0) {
              // ARGV[1] is the packed JSON
              entry!.at = cas.raw.length + 2;
              cas.raw.push(claim.hot, entry!.after.hot);
              if (line) cas.raw.push(historyOf(op, entry!.after));
              else if (cas.history === true) entry!.at = -entry!.at;
            }
            at = entry!.at;
          }
        }
        cas.ops.push(done);
      }
      args.push(op.id, op.expect?.attempt ?? '', op.expect?.workerId ?? '', n, claim?.queue ?? '', result, at);
    },
  });
}

/**
 * The '@h' writes of a completion shape, as split_writes in lib/hot.lua makes them (the state, then the set
 * fields, then the removed ones; a later write of a field wins), as rank/value pairs by ascending rank. Runs
 * once per shape, which an idle worker's ACKs make anew each time (a new instant): no Map, no sort.
 */
function shapeHotWrites(shape: ReadonlyArray<string | number>): Array<number | string> {
  const byRank = new Array<string | undefined>(HOT_COUNT);
  byRank[H_STATE] = COMPLETED;
  const nSet = shape[2] as number;
  for (let k = 3; k < 3 + 2 * nSet; k += 2) {
    const rank = hotRank(shape[k] as string);
    if (rank !== undefined) byRank[rank] = shape[k + 1] as string;
  }
  const delAt = 3 + 2 * nSet;
  for (let k = delAt + 1; k <= delAt + (shape[delAt] as number); k++) {
    const rank = hotRank(shape[k] as string);
    if (rank !== undefined) byRank[rank] = '';
  }
  const writes: Array<number | string> = [];
  for (let rank = 0; rank < HOT_COUNT; rank++) if (byRank[rank] !== undefined) writes.push(rank, byRank[rank]!);
  return writes;
}

/** The history line of completing, by `op`, the claim that completes as `after` (lib/history.lua). */
function historyOf(op: TransitionOp, after: CasAfter): string {
  return encodeHistoryLine(op.note?.at ?? '', ACTIVE, COMPLETED, op.note?.trigger ?? 'ack', after.attempt, after.worker);
}

/** A claimed '@h' of a batch: what completing it leaves, and where it was sent (0: not yet). */
interface CasSent {
  at: number;
  after: CasAfter;
}

/** '@h' after a completion, and the claim's fields the guards and the answer need. */
interface CasAfter {
  hot: string;
  attempt: string;
  worker: string;
  type: string;
}

/**
 * '@h' after completing a job whose '@h' as claimed is `hot`, with the shape's `writes`; undefined when that
 * '@h' is not an active job's (the op then takes the script's usual path).
 */
function casAfter(hot: string, writes: ReadonlyArray<number | string>): CasAfter | undefined {
  if (!locateHot(hot) || hotAt(hot, H_STATE) !== ACTIVE) return undefined;
  const attempt = hotAt(hot, H_ATTEMPT);
  const worker = hotAt(hot, H_WORKER);
  const type = hotAt(hot, H_TYPE);
  // the fields written replace theirs; the runs between them are kept as they are
  let after = '';
  let keep = 0;
  for (let k = 0; k < writes.length; k += 2) {
    const rank = writes[k] as number;
    after += hot.slice(keep, hotStart(rank)) + (writes[k + 1] as string);
    keep = hotStart(rank + 1) - 1;
  }
  return { hot: after + hot.slice(keep), attempt, worker, type };
}

/**
 * What the answer to `op` leaves out, when its guards admit the claim `hint` (active, the op's attempt and
 * worker) that completes as `after`; else undefined (the op then takes the script's usual path).
 */
function casGuarded(op: TransitionOp, hint: ClaimHint, after: CasAfter): CasCompletion | undefined {
  if (!op.from.includes(ACTIVE)) return undefined;
  const expect = op.expect;
  if (expect?.attempt !== undefined && String(expect.attempt) !== after.attempt) return undefined;
  if (expect?.workerId !== undefined && after.worker !== '' && after.worker !== expect.workerId) return undefined;
  return { queue: hint.queue, type: after.type, attempt: Number(after.attempt) };
}

/**
 * Decodes job-complete-many's answer for one op: the text 'attempt|queue|type' when the job was completed (type
 * and queue names never hold '|'), '=' when it was completed by compare-and-set (`cas`: what that op's answer
 * leaves out), [1, fields] when it was completed and comes back in full, else [state|null, fields?].
 */
export function decodeCompletionReply(reply: unknown, op: TransitionOp, cas?: CasCompletion): TransitionResult {
  if (typeof reply === 'string' && reply.charCodeAt(0) === 61 /* = */ && cas) {
    return { ok: true, from: ACTIVE, summary: { id: op.id, type: cas.type, queue: cas.queue, state: COMPLETED, attempt: cas.attempt } };
  }
  if (typeof reply === 'string') {
    const a = reply.indexOf('|');
    const q = reply.indexOf('|', a + 1);
    const summary: JobSummary = {
      id: op.id,
      type: reply.slice(q + 1),
      queue: reply.slice(a + 1, q),
      state: COMPLETED,
      attempt: Number(reply.slice(0, a)),
    };
    return { ok: true, from: ACTIVE, summary };
  }
  const [state, fields] = reply as [JobState | 1 | null, string[] | undefined];
  if (state === 1) return { ok: true, from: ACTIVE, job: decodeJob(fields!) };
  if (!state) return { ok: false, state: null };
  return fields ? { ok: false, state, job: decodeJob(fields) } : { ok: false, state };
}
