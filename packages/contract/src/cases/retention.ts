/**
 * Retention (issue 27 items 2 and 4; spec/admin.md "Retention"): the pruner keeps each terminal state for its own
 * engine-wide retention (defaults: completed and cancelled 24 h, discarded 7 days, dead letters 180 days) and a
 * queue configuration's `retention` overrides it for that queue. Driven by the manual clock and `advance`, which
 * runs the background services once.
 */
import { expect } from 'vitest';
import type { Suite } from '../harness.js';
import { INTO, intoPlainDiscarded } from '../support/drive.js';
import { expectOjsError } from '../support/errors.js';

const HOUR_MS = 3_600_000;

export function registerRetentionCases(suite: Suite): void {
  suite.group('retention', () => {
    suite.test(
      'retention.per-state',
      'each terminal state is pruned at its own retention; dead letters stay for theirs',
      async (t) => {
        const queue = t.queue();
        const completed = await INTO.completed(t, queue);
        const cancelled = await INTO.cancelled(t, queue);
        const discarded = await intoPlainDiscarded(t, queue);
        const dead = await INTO.discarded(t, queue);
        await t.advance(25 * HOUR_MS);
        await expectOjsError(t.api.getJob(completed.id), { code: 'not_found' });
        await expectOjsError(t.api.getJob(cancelled.id), { code: 'not_found' });
        // discarded jobs are kept 7 days, not at completed's 24 h
        await t.expectState(discarded.id, 'discarded');
        await t.expectState(dead.id, 'discarded');
        await t.advance(7 * 24 * HOUR_MS);
        await expectOjsError(t.api.getJob(discarded.id), { code: 'not_found' });
        await t.expectState(dead.id, 'discarded');
      },
      { timeoutMs: 120_000 },
    );

    suite.test(
      'retention.per-queue',
      "a queue with a short retention loses its finished jobs while another queue's stay",
      async (t) => {
        const short = t.queue();
        const other = t.queue();
        const long = t.queue();
        await t.api.setQueueConfig(short, { retention: { completed_ms: 60_000, discarded_ms: 120_000 } });
        // longer than the engine-wide 24 h for cancelled jobs
        await t.api.setQueueConfig(long, { retention: { cancelled_ms: 48 * HOUR_MS } });
        const shortDone = await INTO.completed(t, short);
        const shortCancelled = await INTO.cancelled(t, short);
        const shortDiscarded = await intoPlainDiscarded(t, short);
        const otherDone = await INTO.completed(t, other);
        const longCancelled = await INTO.cancelled(t, long);
        await t.advance(90_000);
        await expectOjsError(t.api.getJob(shortDone.id), { code: 'not_found' });
        await t.expectState(shortDiscarded.id, 'discarded');
        await t.expectState(shortCancelled.id, 'cancelled');
        await t.expectState(otherDone.id, 'completed');
        await t.advance(60_000);
        await expectOjsError(t.api.getJob(shortDiscarded.id), { code: 'not_found' });
        await t.expectState(otherDone.id, 'completed');
        await t.advance(25 * HOUR_MS);
        // the queue's own cancelled retention is the engine's; the other queue's completed jobs go at 24 h
        await expectOjsError(t.api.getJob(shortCancelled.id), { code: 'not_found' });
        await expectOjsError(t.api.getJob(otherDone.id), { code: 'not_found' });
        await t.expectState(longCancelled.id, 'cancelled');
        await t.advance(24 * HOUR_MS);
        await expectOjsError(t.api.getJob(longCancelled.id), { code: 'not_found' });
        expect((await t.api.getQueueConfig(long)).retention).toEqual({ cancelled_ms: 48 * HOUR_MS });
      },
      { timeoutMs: 120_000 },
    );
  });
}
