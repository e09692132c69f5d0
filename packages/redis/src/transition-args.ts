/** Encodes a `TransitionOp` as the ARGV record lib/transition.lua reads, and decodes its result. */
import type { TransitionOp, TransitionResult, JobState } from '@ojskit/core';
import { decodeJob, decodeSummary, encodeEnvelopeValue, encodeInternalValue, envelopeField } from './codec.js';

/** Envelope keys a transition never writes or removes: they identify the job, or `to` sets them. */
const PROTECTED_KEYS: ReadonlySet<string> = new Set(['id', 'state']);

/** Appends one op to `out` (see lib/transition.lua for the layout). */
export function pushTransitionOp(op: TransitionOp, out: Array<string | number>): void {
  const expect = op.expect;
  out.push(
    op.id,
    `,${op.from.join(',')},`,
    op.to,
    expect?.attempt ?? '',
    expect?.workerId ?? '',
    expect?.visibleUntil ?? '',
    expect?.deadLetter === undefined ? '' : expect.deadLetter ? '1' : '0',
    op.returning ?? 'job',
  );
  const set: string[] = [];
  const del: string[] = [];
  if (op.set) {
    for (const [key, value] of Object.entries(op.set)) {
      if (PROTECTED_KEYS.has(key)) continue;
      const encoded = encodeEnvelopeValue(key, value);
      if (encoded === undefined) del.push(envelopeField(key));
      else set.push(envelopeField(key), encoded);
    }
  }
  for (const key of op.unset ?? []) if (!PROTECTED_KEYS.has(key)) del.push(envelopeField(key));
  if (op.x) {
    for (const [key, value] of Object.entries(op.x)) {
      if (value === undefined) continue;
      const encoded = encodeInternalValue(key, value);
      if (encoded === undefined) del.push(`@${key}`);
      else set.push(`@${key}`, encoded);
    }
  }
  out.push(set.length / 2);
  for (const s of set) out.push(s);
  out.push(del.length);
  for (const d of del) out.push(d);
}

/** Decodes one `{1|0, state, fields}` reply. */
export function decodeTransitionReply(reply: unknown, op: TransitionOp): TransitionResult {
  // JSON replies (packed scripts) carry false where RESP would carry nil
  const [ok, state, fields] = reply as [number, string | null | false, string[] | undefined];
  if (ok === 1) {
    const from = state as JobState;
    if (op.returning === 'summary') return { ok: true, from, summary: decodeSummary(fields as Array<string | null>) };
    return { ok: true, from, job: decodeJob(fields!) };
  }
  if (state === null || state === undefined || state === false) return { ok: false, state: null };
  return fields ? { ok: false, state: state as JobState, job: decodeJob(fields) } : { ok: false, state: state as JobState };
}
