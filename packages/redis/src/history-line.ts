/**
 * A history line as lib/history.lua stores it (`at|from|to|trigger|attempt|wlen|worker[|reason]`): encoded here
 * for the completions the driver sends by compare-and-set (completion-args.ts), decoded for `jobHistory`.
 */
import type { JobHistoryEntry } from '@ojskit/core';
import type { JobState, Trigger } from '@ojskit/core/driver';

/** The line of a transition, exactly as lib/history.lua's hist_line writes it; `worker` '' when none. */
export function encodeHistoryLine(at: string, from: JobState | '', to: JobState, trigger: Trigger, attempt: string, worker: string, reason?: string): string {
  const line = `${at}|${from}|${to}|${trigger}|${attempt}|${worker === '' ? '|' : `${Buffer.byteLength(worker)}|${worker}`}`;
  return reason === undefined ? line : `${line}|${reason}`;
}

/** Decodes a stored line. The worker id's length is in bytes (Lua's `#`), so it is cut from the line's UTF-8 bytes. */
export function decodeHistoryLine(line: string): JobHistoryEntry {
  let start = 0;
  const next = (): string => {
    const end = line.indexOf('|', start);
    const field = line.slice(start, end);
    start = end + 1;
    return field;
  };
  const at = next();
  const from = next();
  const to = next() as JobState;
  const trigger = next() as Trigger;
  const attempt = Number(next());
  const wlen = next();
  const entry: JobHistoryEntry = { at, from: from === '' ? null : (from as JobState), to, trigger, attempt };
  let rest = line.slice(start);
  if (wlen !== '') {
    const bytes = Buffer.from(rest);
    const n = Number(wlen);
    entry.worker_id = bytes.subarray(0, n).toString();
    rest = bytes.subarray(n).toString();
  }
  // what follows the worker: nothing, or '|' and the reason
  if (rest.length > 0) entry.reason = rest.slice(1);
  return entry;
}
