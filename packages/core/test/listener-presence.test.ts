/** ListenerPresence: when a transport may stop sending events, and what brings them back. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { HELLO_ANSWER_WAIT_MS, heardMessage, helloMessage, ListenerPresence, PRESENCE_PROBE_MS, presenceMessage } from '../src/entries/driver.js';

describe('ListenerPresence', () => {
  let now = 1_000;
  const clock = () => now;
  afterEach(() => {
    vi.useRealTimers();
  });

  it('publishes until a count finds only this process, then once every PRESENCE_PROBE_MS', () => {
    const presence = new ListenerPresence('me', true, clock);
    expect(presence.publishing).toBe(true);
    presence.counted(2, presence.mark, true);
    expect(presence.publishing).toBe(true);
    presence.counted(1, presence.mark, true);
    expect(presence.publishing).toBe(false);
    now += PRESENCE_PROBE_MS - 1;
    expect(presence.publishing).toBe(false);
    now += 1;
    expect(presence.publishing).toBe(true); // the probe: its publish counts again
    presence.counted(1, presence.mark, true);
    expect(presence.publishing).toBe(false);
    presence.counted(3, presence.mark, true);
    expect(presence.publishing).toBe(true);
  });

  it('a hello wins over a count that began before it, and a deaf process keeps publishing', () => {
    const presence = new ListenerPresence('me', true, clock);
    const answers: string[] = [];
    const heardHello = () => presence.handle({ hello: 'other' }, (text) => answers.push(text));
    const mark = presence.mark;
    heardHello();
    presence.counted(1, mark, true); // counted before the newcomer subscribed
    expect(presence.publishing).toBe(true);
    presence.counted(1, presence.mark, false); // not hearing hellos: never quiet
    expect(presence.publishing).toBe(true);
    presence.counted(1, presence.mark, true);
    expect(presence.publishing).toBe(false);
    heardHello();
    expect(presence.publishing).toBe(true);
    expect(answers).toEqual([heardMessage('other'), heardMessage('other')]);
    presence.counted(1, presence.mark, true);
    presence.handle({ hello: 'me' }, (text) => answers.push(text)); // its own hello, back from the channel
    expect(presence.publishing).toBe(false);
    expect(answers).toHaveLength(2);
    presence.deaf();
    expect(presence.publishing).toBe(true);
  });

  it('always publishes when disabled', () => {
    const presence = new ListenerPresence('me', false, clock);
    presence.counted(1, presence.mark, true);
    expect(presence.publishing).toBe(true);
  });

  it('waits for the answers to its hello, or HELLO_ANSWER_WAIT_MS', async () => {
    vi.useFakeTimers();
    const presence = new ListenerPresence('me', true, clock);
    const answered = (to = 'me') => presence.handle({ heard: to }, () => {});
    expect(presence.hello()).toBe(helloMessage('me'));
    answered(); // an answer may come before the count of listeners does
    answered('someone else');
    let done = false;
    void presence.answersFrom(2).then(() => (done = true));
    await Promise.resolve();
    expect(done).toBe(false);
    answered();
    await Promise.resolve();
    expect(done).toBe(true);

    presence.hello();
    let timedOut = false;
    void presence.answersFrom(1).then(() => (timedOut = true));
    await vi.advanceTimersByTimeAsync(HELLO_ANSWER_WAIT_MS - 1);
    expect(timedOut).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(timedOut).toBe(true);
  });

  it('reads its control messages and nothing else', () => {
    expect(presenceMessage(JSON.parse(helloMessage('a')))).toEqual({ hello: 'a' });
    expect(presenceMessage(JSON.parse(heardMessage('b')))).toEqual({ heard: 'b' });
    expect(presenceMessage([{ hello: 'a' }])).toBeUndefined();
    expect(presenceMessage({ e: [] })).toBeUndefined();
    expect(presenceMessage({ hello: true })).toBeUndefined();
    expect(presenceMessage(null)).toBeUndefined();
  });
});
