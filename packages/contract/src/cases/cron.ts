/** Cron: both registration forms, upsert, list/get/patch/delete, validation, timezones, firing and overlap. */
import { expect } from 'vitest';
import type { CronDescription, OjsApi, OjsEvent } from '@ojskit/core';
import { toTimestamp } from '@ojskit/core/formats';
import type { CaseContext } from '../context.js';
import type { Suite } from '../harness.js';
import { expectOjsError } from '../support/errors.js';
import { nextMinuteMatching } from '../support/zoned-time.js';

const EVERY_FIVE = '*/5 * * * *';

/** Registers a template-form cron firing `*\/5 * * * *` into `queue`. */
async function everyFive(t: CaseContext, queue: string, extra: Record<string, unknown> = {}): Promise<{ name: string; cron: CronDescription }> {
  const name = t.uniqueName();
  const res = await t.api.registerCron({
    name,
    expression: EVERY_FIVE,
    job_template: { type: 'cron.tick', args: [1], meta: { origin: 'cron' }, options: { queue } },
    ...extra,
  });
  return { name, cron: res.cron };
}

/** Moves the clock to just after the cron's next occurrence and runs maintenance. */
async function reachNextRun(t: CaseContext, name: string): Promise<number> {
  const { cron } = await t.api.getCron(name);
  const due = Date.parse(cron.next_run_at!);
  t.clock.set(due + 500);
  await t.maintenance();
  return due;
}

async function findCron(api: OjsApi, name: string, enabled?: boolean): Promise<CronDescription | undefined> {
  for (let offset = 0; ;) {
    const page = await api.listCron({ limit: 200, offset, ...(enabled === undefined ? {} : { enabled }) });
    const found = page.crons.find((c) => c.name === name);
    if (found || !page.pagination.has_more || page.crons.length === 0) return found;
    offset += page.crons.length;
  }
}

async function cronEvents(api: OjsApi, type: string, name: string): Promise<OjsEvent[]> {
  const { events } = await api.pollEvents({ types: [type], limit: 1_000 });
  return events.filter((e) => e.data.cron_name === name);
}

/** Moves the clock off a whole minute, so "the first occurrence after now" has one answer. */
function offBoundary(t: CaseContext): void {
  if (t.now() % 60_000 === 0) t.clock.advance(1_234);
}

export function registerCronCases(suite: Suite): void {
  suite.group('cron', () => {
    suite.test('cron.register-template', 'the template form registers a cron described in both keys', async (t) => {
      offBoundary(t);
      const queue = t.queue();
      const name = t.uniqueName();
      const res = await t.api.registerCron({
        name,
        expression: EVERY_FIVE,
        description: 'tick',
        job_template: { type: 'cron.tick', args: [1], options: { queue } },
      });
      expect(res.created).toBe(true);
      expect(res.cron_job).toEqual(res.cron);
      const expectedNext = nextMinuteMatching(t.now(), 'UTC', (f) => f.minute % 5 === 0);
      expect(res.cron).toMatchObject({
        name,
        expression: EVERY_FIVE,
        cron: EVERY_FIVE,
        timezone: 'UTC',
        overlap_policy: 'skip',
        enabled: true,
        status: 'active',
        type: 'cron.tick',
        args: [1],
        description: 'tick',
        created_at: t.iso(),
        next_run_at: toTimestamp(expectedNext),
        last_run_at: null,
        run_count: 0,
      });
      expect(res.cron.job_template).toMatchObject({ type: 'cron.tick', args: [1], options: { queue } });
      expect(res.cron.options).toMatchObject({ queue });
    });

    suite.test('cron.register-flat', 'the flat form (cron, type, args, options) registers the same cron', async (t) => {
      const queue = t.queue();
      const name = t.uniqueName();
      const res = await t.api.registerCron({ name, cron: '0 * * * *', type: 'cron.flat', args: ['x'], options: { queue }, overlap_policy: 'allow' });
      expect(res.created).toBe(true);
      expect(res.cron).toMatchObject({
        name,
        expression: '0 * * * *',
        cron: '0 * * * *',
        type: 'cron.flat',
        args: ['x'],
        overlap_policy: 'allow',
        job_template: { type: 'cron.flat', args: ['x'] },
      });
    });

    suite.test('cron.upsert', 'registering an existing name replaces it: created:false', async (t) => {
      const name = t.uniqueName();
      const first = await t.api.registerCron({ name, expression: EVERY_FIVE, job_template: { type: 'cron.a', args: [] } });
      expect(first.created).toBe(true);
      const second = await t.api.registerCron({ name, expression: '@hourly', job_template: { type: 'cron.b', args: [] } });
      expect(second.created).toBe(false);
      expect(second.cron).toMatchObject({ name, expression: '@hourly', type: 'cron.b' });
      expect((await t.api.getCron(name)).cron).toMatchObject({ expression: '@hourly', type: 'cron.b' });
    });

    suite.test('cron.list-get', 'list (both keys, count, enabled filter) and get; unknown name → 404', async (t) => {
      const { name, cron } = await everyFive(t, t.queue());
      const list = await t.api.listCron({ limit: 200 });
      expect(list.cron_jobs).toEqual(list.crons);
      expect(list.count).toBeGreaterThanOrEqual(1);
      expect(await findCron(t.api, name)).toEqual(cron);
      expect((await t.api.getCron(name)).cron).toEqual(cron);
      await t.api.updateCron(name, { enabled: false });
      expect(await findCron(t.api, name, true)).toBeUndefined();
      expect(await findCron(t.api, name, false)).toMatchObject({ name, enabled: false });
      await expectOjsError(t.api.getCron(t.uniqueName()), { code: 'not_found' });
    });

    suite.test('cron.patch', 'disabling clears next_run_at and stops firing; enabling recomputes it', async (t) => {
      offBoundary(t);
      const queue = t.queue();
      const { name } = await everyFive(t, queue);
      const disabled = await t.api.updateCron(name, { enabled: false });
      expect(disabled.cron).toMatchObject({ enabled: false, status: 'disabled', next_run_at: null });
      await t.advance(15 * 60_000);
      expect(await t.claimIds([queue], 5)).toEqual([]);
      const enabled = await t.api.updateCron(name, { enabled: true });
      expect(enabled.cron).toMatchObject({
        enabled: true,
        status: 'active',
        next_run_at: toTimestamp(nextMinuteMatching(t.now(), 'UTC', (f) => f.minute % 5 === 0)),
      });
      await expectOjsError(t.api.updateCron(t.uniqueName(), { enabled: false }), { code: 'not_found' });
    });

    suite.test('cron.delete', 'delete answers the cron; later reads → 404; enqueued jobs stay', async (t) => {
      const queue = t.queue();
      const { name } = await everyFive(t, queue);
      await reachNextRun(t, name);
      const [fired] = (await t.api.fetch({ queues: [queue] })).jobs;
      expect(fired).toBeDefined();
      const res = await t.api.deleteCron(name);
      expect(res).toMatchObject({ deleted: true, name, cron: { name } });
      await expectOjsError(t.api.getCron(name), { code: 'not_found' });
      await expectOjsError(t.api.deleteCron(name), { code: 'not_found' });
      await t.expectState(fired!.id, 'active');
    });

    suite.test('cron.invalid', 'bad expressions, timezones, names, policies or templates → 400 invalid_request', async (t) => {
      const template = { type: 'cron.x', args: [] };
      const bodies: Array<Record<string, unknown>> = [
        { name: t.uniqueName(), expression: '* * *', job_template: template },
        { name: t.uniqueName(), expression: '*/0 * * * *', job_template: template },
        { name: t.uniqueName(), expression: '60 * * * *', job_template: template },
        { name: t.uniqueName(), expression: '', job_template: template },
        { name: t.uniqueName(), expression: EVERY_FIVE, timezone: 'Mars/Olympus', job_template: template },
        { name: 'Not A Name', expression: EVERY_FIVE, job_template: template },
        { name: t.uniqueName(), expression: EVERY_FIVE, overlap_policy: 'sometimes', job_template: template },
        { name: t.uniqueName(), expression: EVERY_FIVE, job_template: { args: [] } },
        { name: t.uniqueName(), expression: EVERY_FIVE, job_template: { type: 'Bad Type', args: [] } },
        { expression: EVERY_FIVE, job_template: template },
        { name: t.uniqueName(), job_template: template },
      ];
      for (const body of bodies) await expectOjsError(t.api.registerCron(body), { code: 'invalid_request' });
    });

    suite.test('cron.expression-syntax', 'names, ranges, lists and steps work in every field; shorthands are accepted', async (t) => {
      offBoundary(t);
      const cases: Array<[string, (f: { minute: number; hour: number; day: number; month: number; weekday: number }) => boolean]> = [
        ['@hourly', (f) => f.minute === 0],
        ['@daily', (f) => f.minute === 0 && f.hour === 0],
        ['@midnight', (f) => f.minute === 0 && f.hour === 0],
        ['15,45 */2 * * *', (f) => (f.minute === 15 || f.minute === 45) && f.hour % 2 === 0],
        ['0 9-17 * * MON-FRI', (f) => f.minute === 0 && f.hour >= 9 && f.hour <= 17 && f.weekday >= 1 && f.weekday <= 5],
        ['30 6 * * 0', (f) => f.minute === 30 && f.hour === 6 && f.weekday === 0],
        ['30 6 * * 7', (f) => f.minute === 30 && f.hour === 6 && f.weekday === 0],
      ];
      for (const [expression, matches] of cases) {
        const { cron } = await t.api.registerCron({ name: t.uniqueName(), expression, job_template: { type: 'cron.x', args: [] } });
        expect(cron.next_run_at, expression).toBe(toTimestamp(nextMinuteMatching(t.now(), 'UTC', matches, 8)));
      }
    });

    suite.test('cron.timezone', 'the schedule is evaluated in the IANA zone; next_run_at is reported in UTC', async (t) => {
      offBoundary(t);
      for (const timezone of ['America/New_York', 'Asia/Kolkata', 'Europe/Berlin']) {
        const { cron } = await t.api.registerCron({ name: t.uniqueName(), expression: '0 9 * * *', timezone, job_template: { type: 'cron.x', args: [] } });
        expect(cron.timezone).toBe(timezone);
        expect(cron.next_run_at).toBe(toTimestamp(nextMinuteMatching(t.now(), timezone, (f) => f.hour === 9 && f.minute === 0)));
        expect(cron.next_run_at).toMatch(/Z$/);
      }
    });

    suite.test('cron.fires', 'an occurrence enqueues a job from the template with meta.cron_name; the cron records the run', async (t) => {
      const queue = t.queue();
      const { name } = await everyFive(t, queue, { overlap_policy: 'allow' });
      const due = await reachNextRun(t, name);
      const { jobs } = await t.api.fetch({ queues: [queue], count: 5 });
      expect(jobs).toHaveLength(1);
      expect(jobs[0]).toMatchObject({ type: 'cron.tick', args: [1], queue, meta: { origin: 'cron', cron_name: name } });
      expect(jobs[0]!.meta.cron_triggered_at).toBeDefined();
      const { cron } = await t.api.getCron(name);
      expect(cron).toMatchObject({ run_count: 1, next_run_at: toTimestamp(due + 300_000) });
      expect(cron.last_run_at).not.toBeNull();
      const triggered = await cronEvents(t.api, 'cron.triggered', name);
      expect(triggered).toHaveLength(1);
      expect(triggered[0]!.data).toMatchObject({ cron_name: name, job_id: jobs[0]!.id });
    });

    suite.test('cron.once-per-occurrence', 'repeated maintenance passes fire an occurrence once', async (t) => {
      const queue = t.queue();
      const { name } = await everyFive(t, queue, { overlap_policy: 'allow' });
      await reachNextRun(t, name);
      await t.maintenance();
      await t.maintenance();
      await t.expectStats(queue, { available: 1 });
    });

    suite.test('cron.not-early', 'nothing fires before the occurrence', async (t) => {
      const queue = t.queue();
      const { name, cron } = await everyFive(t, queue);
      t.clock.set(Date.parse(cron.next_run_at!) - 1);
      await t.maintenance();
      await t.expectStats(queue, { available: 0 });
      expect((await t.api.getCron(name)).cron.run_count).toBe(0);
    });

    suite.test('cron.overlap-skip', 'overlap skip (the default): no new job while the previous one is unfinished; cron.skipped', async (t) => {
      const queue = t.queue();
      const { name } = await everyFive(t, queue);
      await reachNextRun(t, name);
      const [first] = (await t.api.fetch({ queues: [queue] })).jobs;
      expect(first).toBeDefined();
      await reachNextRun(t, name);
      await t.expectStats(queue, { available: 0 });
      const skipped = await cronEvents(t.api, 'cron.skipped', name);
      expect(skipped.length).toBeGreaterThanOrEqual(1);
      await t.api.ack({ job_id: first!.id });
      await reachNextRun(t, name);
      await t.expectStats(queue, { available: 1 });
    });

    suite.test('cron.overlap-allow', 'overlap allow: every occurrence enqueues', async (t) => {
      const queue = t.queue();
      const { name } = await everyFive(t, queue, { overlap_policy: 'allow' });
      await reachNextRun(t, name);
      await reachNextRun(t, name);
      await t.expectStats(queue, { available: 2 });
      expect((await t.api.getCron(name)).cron.run_count).toBe(2);
    });

    suite.test('cron.catch-up', 'after downtime at most one catch-up firing; next_run_at jumps forward', async (t) => {
      const queue = t.queue();
      const { name } = await everyFive(t, queue, { overlap_policy: 'allow' });
      await t.advance(60 * 60_000);
      await t.maintenance();
      await t.expectStats(queue, { available: 1 });
      const { cron } = await t.api.getCron(name);
      expect(Date.parse(cron.next_run_at!)).toBeGreaterThan(t.now());
    });
  });
}
