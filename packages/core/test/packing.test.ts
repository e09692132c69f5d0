/** The compact event wire form: single events, and runs of alike job events as groups. */
import { describe, expect, it } from 'vitest';
import { makeEvent, packEvent, packEvents, unpackItem, type OjsEvent } from '../src/index.js';

describe('packEvents', () => {
  const at = new Date(0).toISOString();
  const started = (n: number, worker = 'w1', time = at): OjsEvent =>
    makeEvent('job.started', `j${n}`, { job_id: `j${n}`, job_type: 't', queue: 'q', state: 'active', from: 'available', attempt: 1, worker_id: worker }, time, 'ojs://ojskit/engine');
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
    const withResult = makeEvent('job.completed', 'j9', { job_id: 'j9', job_type: 't', queue: 'q', state: 'completed', from: 'active', attempt: 1, result: { a: 1 } }, at);
    const events = [started(1), started(2), started(3, 'w2'), started(4, 'w2', new Date(1).toISOString()), other, withResult, { ...withResult, id: 'x' }, started(5), started(6)];
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
});
