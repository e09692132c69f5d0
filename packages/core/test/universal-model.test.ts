/** The universal model maps every state for every system, and what a system lacks follows from the table. */
import { describe, expect, it } from 'vitest';
import { JOB_STATES } from '../src/index.js';
import { TRANSITIONS, TRIGGERS, UNIVERSAL_MODEL, lackingTransitions, transitionSupport } from '../src/entries/lifecycle.js';

describe('UNIVERSAL_MODEL', () => {
  it('names each system once and maps exactly the eight states, with triggers from the table', () => {
    expect(new Set(UNIVERSAL_MODEL.map((s) => s.id)).size).toBe(UNIVERSAL_MODEL.length);
    for (const system of UNIVERSAL_MODEL) {
      expect(Object.keys(system.states).sort()).toEqual([...JOB_STATES].sort());
      for (const trigger of system.missingTriggers) expect(TRIGGERS).toContain(trigger);
    }
    expect(UNIVERSAL_MODEL.filter((s) => s.kind === 'library').map((s) => s.name)).toEqual(['Sidekiq', 'Celery', 'BullMQ', 'Oban', 'River']);
    expect(UNIVERSAL_MODEL.filter((s) => s.kind === 'design')).toHaveLength(3);
  });

  it('a row is missing where a state or the cause is absent, collapsed where both ends share a native name', () => {
    const byId = (id: string) => UNIVERSAL_MODEL.find((s) => s.id === id)!;
    const row = (from: string | null, trigger: string, to: string) => TRANSITIONS.find((t) => t.from === from && t.trigger === trigger && t.to === to)!;
    expect(transitionSupport(byId('river'), row('available', 'fetch', 'active'))).toBe('native');
    expect(transitionSupport(byId('sidekiq'), row('active', 'ack', 'completed'))).toBe('missing');
    expect(transitionSupport(byId('four-state-enum'), row('scheduled', 'timer', 'available'))).toBe('collapsed');
    expect(transitionSupport(byId('oban'), row('available', 'expiry', 'discarded'))).toBe('missing');
    expect(lackingTransitions(byId('four-state-enum')).some((t) => t.to === 'retryable')).toBe(true);
    expect(lackingTransitions(byId('river')).every((t) => ['expiry', 'unique_replace', 'requeue'].includes(t.trigger))).toBe(true);
  });
});
