/** The compact event wire form: single events, and runs of alike job events as groups. */
import { describe, expect, it } from 'vitest';
import type { OjsEvent } from '../src/index.js';
import { packEvent, packEvents, unpackItem } from '../src/entries/driver.js';
import { makeEvent } from '../src/entries/testing.js';

describe('packEvents', () => {
  const at = new Date(0).toISOString();
  const started = (n: number, worker = 'w1', time = at): OjsEvent =>
    makeEvent(
      'job.started',
      `j${n}`,
      { job_id: `j${n}`, job_type: 't', queue: 'q', state: 'active', from: 'available', attempt: 1, worker_id: worker },
      time,
      'ojs://ojskit/engine',
    );
  const roundTrip = (events: OjsEvent[]) => packEvents(events).flatMap((item) => unpackItem(JSON.parse(item.text)));

  it('sends a run of alike job events as one group, shorter, and gets every event back equal and in order', () => {
    const events = Array.from({ length: 10 }, (_, n) => started(n));
    const items = packEvents(events);
    expect(items).toHaveLength(1);
    expect(items[0]!.text.length).toBeLessThan(events.map(packEvent).join(',').length / 2);
    const back = roundTrip(events);
    expect(back).toEqual(events);
    expect(back.map((e) => Object.keys(e.data))).toEqual(events.map((e) => Object.keys(e.data)));
  });

  it('starts a new group wherever anything but the id and the job differs, and keeps other events apart', () => {
    const other = makeEvent('queue.paused', 'q', { queue: 'q' }, at);
    const withResult = makeEvent(
      'job.completed',
      'j9',
      { job_id: 'j9', job_type: 't', queue: 'q', state: 'completed', from: 'active', attempt: 1, result: { a: 1 } },
      at,
    );
    const events = [
      started(1),
      started(2),
      started(3, 'w2'),
      started(4, 'w2', new Date(1).toISOString()),
      other,
      withResult,
      { ...withResult, id: 'x' },
      started(5),
      started(6),
    ];
    const items = packEvents(events);
    expect(items.map((i) => (i.event === undefined ? 'group' : 'single'))).toEqual(['group', 'single', 'single', 'single', 'single', 'single', 'group']);
    expect(roundTrip(events)).toEqual(events);
  });

  it('caps a group, so it always fits a payload', () => {
    const events = Array.from({ length: 500 }, (_, n) => started(n));
    const items = packEvents(events);
    expect(items.length).toBeGreaterThan(1);
    // The default bound (7 000 bytes) leaves room for a NOTIFY payload's envelope.
    for (const item of items) expect(Buffer.byteLength(item.text)).toBeLessThanOrEqual(7_000);
    expect(roundTrip(events)).toEqual(events);
  });

  it('bounds a group in UTF-8 bytes, not characters', () => {
    const wide = (n: number): OjsEvent => {
      const id = `j${n}-é€😀`.repeat(4);
      return makeEvent('job.started', id, { job_id: id, job_type: 't', queue: 'q', state: 'active', from: 'available', attempt: 1 }, at);
    };
    const events = Array.from({ length: 300 }, (_, n) => wide(n));
    const items = packEvents(events, 2_000);
    expect(items.length).toBeGreaterThan(1);
    for (const item of items) expect(new TextEncoder().encode(item.text).length).toBeLessThanOrEqual(2_000);
    expect(roundTrip(events)).toEqual(events);
  });

  it('sends only the first id of a run whose ids count up (as the engine derives them), and restores each', () => {
    const id = (seq: number) => `evt_01a200b4-70b3-789e-83b5-f604${(seq % 2 ** 32).toString(16).padStart(8, '0')}`;
    const counted = (n: number, seq: number): OjsEvent => ({ ...started(n), id: id(seq) });
    // Across the 32-bit wrap of the sequence, then a gap, then ids that do not count at all.
    const events = [
      ...Array.from({ length: 4 }, (_, n) => counted(n, 2 ** 32 - 2 + n)),
      counted(10, 7),
      counted(11, 8),
      counted(12, 20),
      ...Array.from({ length: 3 }, (_, n) => ({ ...started(20 + n), id: `other-${n}` })),
    ];
    const items = packEvents(events);
    const groups = items.map((item) => JSON.parse(item.text) as { i?: string; e: string[] });
    expect(groups.map((g) => [g.i, g.e.length])).toEqual([
      [id(2 ** 32 - 2), 4],
      [id(7), 2],
      [undefined, 8],
    ]);
    expect(groups[0]!.e).toEqual(['j0', 'j1', 'j2', 'j3']);
    expect(roundTrip(events)).toEqual(events);
  });

  it('caps a group of counted ids in UTF-8 bytes too', () => {
    const events = Array.from({ length: 400 }, (_, n) => ({
      ...started(n),
      subject: `j${n}-é€😀`,
      data: { ...started(n).data, job_id: `j${n}-é€😀` },
      id: `evt_${n.toString(16).padStart(8, '0')}`,
    }));
    const items = packEvents(events, 1_000);
    expect(items.filter((item) => item.event === undefined).length).toBeGreaterThan(1);
    for (const item of items) {
      expect(new TextEncoder().encode(item.text).length).toBeLessThanOrEqual(1_000);
      if (item.event === undefined) expect((JSON.parse(item.text) as { i?: string }).i).toBeDefined();
    }
    expect(roundTrip(events)).toEqual(events);
  });

  it('keeps a run whose events differ only in their since (enqueued_at, started_at) one group, each since restored in place', () => {
    const withSince = (n: number): OjsEvent => {
      const event = started(n);
      return { ...event, id: `evt_${n.toString(16).padStart(8, '0')}`, data: { ...event.data, enqueued_at: new Date(n * 7).toISOString() } };
    };
    const completed = (n: number): OjsEvent =>
      makeEvent(
        'job.completed',
        `c${n}`,
        { job_id: `c${n}`, job_type: 't', queue: 'q', state: 'completed', from: 'active', attempt: 1, started_at: new Date(n).toISOString() },
        at,
      );
    const events = [...Array.from({ length: 20 }, (_, n) => withSince(n)), ...Array.from({ length: 5 }, (_, n) => completed(n))];
    const items = packEvents(events);
    expect(items.map((i) => (i.event === undefined ? 'group' : 'single'))).toEqual(['group', 'group']);
    expect((JSON.parse(items[0]!.text) as { s: string[] }).s).toHaveLength(20);
    const back = roundTrip(events);
    expect(back).toEqual(events);
    expect(back.map((e) => Object.keys(e.data))).toEqual(events.map((e) => Object.keys(e.data)));
    // A since that is not the last field (not as the engine writes it) is sent as it is.
    const reordered = events.slice(0, 3).map((e) => ({ ...e, data: { ...e.data, enqueued_at: e.data['enqueued_at'], extra: 1 } }));
    expect(roundTrip(reordered)).toEqual(reordered);
  });
});
