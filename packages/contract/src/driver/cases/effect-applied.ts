/** The check every primitive case makes: a stored job carries exactly what core's effect writes at an instant. */
import { expect } from 'vitest';
import type { StoredJob, TransitionEffect } from '@ojskit/core';
import { iso } from '../context.js';

/**
 * Fails unless `stored` is in `effect.to` with the effect's stamps at `now` (envelope at its RFC 3339 text,
 * internals in epoch ms) and without any field the effect removes. Read from core's `EFFECTS`, so a change to
 * an effect changes what every driver is held to.
 */
export function expectEffectApplied(stored: StoredJob, effect: TransitionEffect, now: number, what: string): void {
  const job = stored.job as unknown as Record<string, unknown>;
  const x = stored.x as unknown as Record<string, unknown>;
  expect(stored.job.state, what).toBe(effect.to);
  for (const field of effect.stamp) expect(job[field], `${what}: ${field}`).toBe(iso(now));
  for (const field of effect.xStamp) expect(x[field], `${what}: x.${field}`).toBe(now);
  for (const field of effect.unset) expect(job[field], `${what}: ${field} removed`).toBeUndefined();
  for (const field of effect.xUnset) expect(x[field], `${what}: x.${field} removed`).toBeUndefined();
}
