import { describe, expect, it } from 'vitest';
import { decodeHistoryLine, encodeHistoryLine } from '../src/history-line.js';

describe('history lines (lib/history.lua)', () => {
  it('round-trip every field, a worker id holding | and non-ASCII characters, and a reason holding |', () => {
    const line = encodeHistoryLine('2026-11-27T10:00:00.000Z', 'active', 'retryable', 'fail', '2', 'wörker|7', 'Smtp|Error');
    expect(line).toBe('2026-11-27T10:00:00.000Z|active|retryable|fail|2|9|wörker|7|Smtp|Error');
    expect(decodeHistoryLine(line)).toEqual({
      at: '2026-11-27T10:00:00.000Z',
      from: 'active',
      to: 'retryable',
      trigger: 'fail',
      attempt: 2,
      worker_id: 'wörker|7',
      reason: 'Smtp|Error',
    });
  });

  it('reads an insert (no from), no worker and no reason, and an empty reason apart from none', () => {
    expect(decodeHistoryLine(encodeHistoryLine('t', '', 'available', 'push', '0', ''))).toEqual({
      at: 't',
      from: null,
      to: 'available',
      trigger: 'push',
      attempt: 0,
    });
    expect(decodeHistoryLine(encodeHistoryLine('t', 'active', 'retryable', 'fail', '1', '', ''))).toMatchObject({ reason: '' });
  });
});
