/**
 * Encodes a batch of completions (ACKs) as the ARGV of job-complete-many.lua, the hot path of a worker, or
 * says that a batch is not one: any op that is not a plain `active -> completed` with a summary reply sends
 * the whole batch to job-transition-many.lua, whose results job-complete-many's match op for op.
 */
import { TRANSITIONS, type JobState, type JobSummary, type TransitionOp, type TransitionResult } from '@ojskit/core';
import { decodeJob, encodeEnvelopeValue } from './codec.js';
import { opShape, pushShapedBatch, sameEntries, sameList } from './transition-args.js';

/** The states core's transition table lets into `completed`. */
const INTO_COMPLETED = new Set(TRANSITIONS.filter((t) => t.to === 'completed' && t.from !== null).map((t) => t.from));
/** The script admits `active` only: should the table ever let another state in, every op takes the general script. */
const SCRIPT_ADMITS = 'active';
const TABLE_MATCHES_SCRIPT = INTO_COMPLETED.size === 1 && INTO_COMPLETED.has(SCRIPT_ADMITS);

/**
 * Whether job-complete-many.lua does for `op` what job-transition-many.lua would. It moves a job from
 * `active` to `completed` and from the `active` index to `fin` (scored by `x.finishedAt`), and writes the
 * op's fields; so the op must allow no other way in (no in-place update of a completed job, no other source
 * state), keep the job in its queue, leave its unique key, dead-letter flag and visibility deadline alone,
 * and want a summary back.
 */
function isCompletion(op: TransitionOp): boolean {
  if (!TABLE_MATCHES_SCRIPT || op.to !== 'completed' || op.returning !== 'summary') return false;
  if (op.expect?.visibleUntil !== undefined || op.expect?.deadLetter !== undefined) return false;
  if (op.from.includes('completed')) return false;
  const x = op.x;
  if (!x || typeof x.finishedAt !== 'number' || !Number.isFinite(x.finishedAt)) return false;
  if (x.uniqueKey !== undefined || x.deadLetter !== undefined) return false;
  const set = op.set;
  if (set) {
    if ('queue' in set) return false;
    if ('result' in set && encodeEnvelopeValue('result', set.result) === undefined) return false;
  }
  if (op.unset?.includes('queue')) return false;
  return true;
}

/** Whether two completions share a shape for sure (their values behind it are equal, the result aside). */
function sameCompletionShape(a: TransitionOp, b: TransitionOp): boolean {
  if (!sameList(a.from, b.from) || !sameList(a.unset, b.unset) || !sameEntries(a.x, b.x)) return false;
  return a.set === b.set || sameEntries(a.set, b.set, 'result');
}

/**
 * Appends the batch to `out` when every op is a completion (see isCompletion) and returns true; returns false,
 * having appended nothing and asked `queueOf` nothing, otherwise.
 */
export function pushCompletionBatch(ops: readonly TransitionOp[], out: Array<string | number>, queueOf: (id: string) => string | undefined): boolean {
  for (const op of ops) if (!isCompletion(op)) return false;
  pushShapedBatch(ops, out, {
    // opShape: from, to, deadLetter, returning, nSet, pairs, nDel, fields; the script takes from, the
    // finishedAt score, then nSet onwards
    shape: (op) => {
      const full = opShape(op, 'result');
      return [full[0]!, String(op.x!.finishedAt), ...full.slice(4)];
    },
    sameShape: sameCompletionShape,
    pushOp: (op, n, args) => {
      const result = op.set && 'result' in op.set ? encodeEnvelopeValue('result', op.set.result)! : '';
      args.push(op.id, op.expect?.attempt ?? '', op.expect?.workerId ?? '', n, queueOf(op.id) ?? '', result);
    },
  });
  return true;
}

/**
 * Decodes job-complete-many's answer for one op: the text 'attempt|queue|type|workflow_id' when the job was
 * completed (type and queue names never hold '|'; the workflow id comes last), else [state|null, fields?].
 */
export function decodeCompletionReply(reply: unknown, op: TransitionOp): TransitionResult {
  if (typeof reply === 'string') {
    const a = reply.indexOf('|');
    const q = reply.indexOf('|', a + 1);
    const t = reply.indexOf('|', q + 1);
    const summary: JobSummary = {
      id: op.id,
      type: reply.slice(q + 1, t),
      queue: reply.slice(a + 1, q),
      state: 'completed',
      attempt: Number(reply.slice(0, a)),
    };
    if (t + 1 < reply.length) summary.workflow_id = reply.slice(t + 1);
    return { ok: true, from: 'active', summary };
  }
  const [state, fields] = reply as [JobState | null, string[] | undefined];
  if (!state) return { ok: false, state: null };
  return fields ? { ok: false, state, job: decodeJob(fields) } : { ok: false, state };
}
