/** `/metrics` time in state (wait, run, retry delay), transition counters and the stuck-job gauge, after real jobs. */
import { expect, it } from 'vitest';
import { Engine } from '@ojskit/core';
import type { Driver } from '@ojskit/core/driver';
import { ManualClock } from '@ojskit/core/testing';
import { createGateway, type Gateway } from '../src/index.js';
import { createBackend } from '../src/backends/registry.js';
import { describeEachBackend, POSTGRES, REDIS } from './support/backends.js';
import { testHarness, type Harness } from './support/harness.js';
import { claim, push, queueName } from './support/flows.js';

/** The value of one series line of an exposition text, or undefined when absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

async function scrape(h: Pick<Harness, 'call'>): Promise<string> {
  const res = await h.call('GET', '/metrics');
  expect(res.status).toBe(200);
  return res.text();
}

/** Scrapes until `done` holds: events from another process arrive a hop later. */
async function scrapeUntil(h: Pick<Harness, 'call'>, done: (text: string) => boolean): Promise<string> {
  const until = Date.now() + 5_000;
  for (;;) {
    const text = await scrape(h);
    if (done(text) || Date.now() > until) return text;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describeEachBackend('metrics: time in state', (backend) => {
  it('wait, run time by outcome, retry delay and a counter per transition, measured on the engine clock', async () => {
    const h = await testHarness(backend);
    const q = queueName('timing');
    const first = await push(h, q);
    h.clock.advance(2_000);
    await claim(h, q);
    h.clock.advance(3_000);
    expect((await h.json('POST', '/ojs/v1/workers/ack', { job_id: first.id, worker_id: 'w1' })).res.status).toBe(200);

    const second = await push(h, q, { options: { queue: q, retry: { max_attempts: 3, initial_interval: 'PT4S', jitter: false } } });
    h.clock.advance(500);
    await claim(h, q);
    h.clock.advance(1_500);
    const failed = await h.json('POST', '/ojs/v1/workers/nack', { job_id: second.id, worker_id: 'w1', error: { code: 'boom', message: 'x' } });
    expect(failed.body.state).toBe('retryable');
    h.clock.advance(4_000);
    await claim(h, q);
    h.clock.advance(250);
    // The batched ACK: answered by a summary on some stores, whose run time the gateway still knows.
    const batch = await h.json('POST', '/ojs/v1/workers/ack/batch', { acks: [{ job_id: second.id, worker_id: 'w1' }] });
    expect(batch.body.results[0].ok).toBe(true);

    const text = await scrape(h);
    const l = `queue="${q}"`;
    expect(sample(text, `ojs_job_transitions_total{${l},from="none",to="available"}`)).toBe(2);
    expect(sample(text, `ojs_job_transitions_total{${l},from="available",to="active"}`)).toBe(3);
    expect(sample(text, `ojs_job_transitions_total{${l},from="active",to="completed"}`)).toBe(2);
    expect(sample(text, `ojs_job_transitions_total{${l},from="active",to="retryable"}`)).toBe(1);
    expect(sample(text, `ojs_job_transitions_total{${l},from="retryable",to="available"}`)).toBe(1);

    // Waits: 2 s, 0.5 s, and 0 s after the claim promoted the retry.
    expect(sample(text, `ojs_job_wait_seconds_count{${l}}`)).toBe(3);
    expect(sample(text, `ojs_job_wait_seconds_sum{${l}}`)).toBe(2.5);
    expect(sample(text, `ojs_job_wait_seconds_bucket{${l},le="0.25"}`)).toBe(1);
    expect(sample(text, `ojs_job_wait_seconds_bucket{${l},le="0.5"}`)).toBe(2);
    expect(sample(text, `ojs_job_wait_seconds_bucket{${l},le="1"}`)).toBe(2);
    expect(sample(text, `ojs_job_wait_seconds_bucket{${l},le="2.5"}`)).toBe(3);
    expect(sample(text, `ojs_job_wait_seconds_bucket{${l},le="+Inf"}`)).toBe(3);

    // Runs: 3 s and 0.25 s completed (one by a single ACK, one by a batched ACK), 1.5 s then retried.
    expect(sample(text, `ojs_job_run_seconds_count{${l},outcome="completed"}`)).toBe(2);
    expect(sample(text, `ojs_job_run_seconds_sum{${l},outcome="completed"}`)).toBe(3.25);
    expect(sample(text, `ojs_job_run_seconds_count{${l},outcome="retryable"}`)).toBe(1);
    expect(sample(text, `ojs_job_run_seconds_sum{${l},outcome="retryable"}`)).toBe(1.5);

    expect(sample(text, `ojs_job_retry_delay_seconds_count{${l}}`)).toBe(1);
    expect(sample(text, `ojs_job_retry_delay_seconds_sum{${l}}`)).toBe(4);
    expect(text).not.toContain(first.id);
  });

  it('stuck jobs: the gauge and the admin list name them until the rescuer moves them', async () => {
    const h = await testHarness(backend);
    const q = queueName('stuck');
    const late = await push(h, q);
    await claim(h, q, { visibility_timeout_ms: 1_000 });
    const silent = await push(h, q);
    await claim(h, q, { worker_id: 'w-silent', visibility_timeout_ms: 600_000 });
    await h.json('POST', '/ojs/v1/workers/heartbeat', { worker_id: 'w-silent', active_job_ids: [silent.id] });
    expect((await h.json('GET', '/ojs/v1/admin/overdue')).body).toMatchObject({ jobs: [], count: 0, truncated: false });

    h.clock.advance(31_000);
    const listed = await h.json('GET', '/ojs/v1/admin/overdue');
    expect(listed.res.status).toBe(200);
    expect(listed.body.count).toBe(2);
    expect(listed.body.jobs[0]).toMatchObject({ job_id: late.id, queue: q, worker_id: 'w1', reason: 'visibility_timeout', attempt: 1, overdue_ms: 30_000 });
    // Silent for 31 s, 1 s past the default 30 s worker death time; its own deadline is minutes away.
    expect(listed.body.jobs[1]).toMatchObject({ job_id: silent.id, worker_id: 'w-silent', reason: 'worker_death', overdue_ms: 1_000 });
    expect((await h.json('GET', '/ojs/v1/admin/overdue?limit=1')).body).toMatchObject({ count: 1, truncated: true });
    expect((await h.json('GET', '/ojs/v1/admin/overdue?limit=0')).res.status).toBe(400);

    let text = await scrape(h);
    expect(sample(text, `ojs_jobs_overdue{queue="${q}"}`)).toBe(2);
    expect(sample(text, 'ojs_jobs_overdue_truncated')).toBe(0);

    await h.engine.runMaintenance();
    expect((await h.json('GET', '/ojs/v1/admin/overdue')).body.count).toBe(0);
    text = await scrape(h);
    expect(sample(text, `ojs_jobs_overdue{queue="${q}"}`)).toBeUndefined();
    // Both lost attempts count as runs that ended back in the queue, timed from their claims.
    expect(sample(text, `ojs_job_run_seconds_count{queue="${q}",outcome="available"}`)).toBe(2);
    expect(sample(text, `ojs_job_run_seconds_sum{queue="${q}",outcome="available"}`)).toBe(62);
    expect(sample(text, `ojs_job_transitions_total{queue="${q}",from="active",to="available"}`)).toBe(2);
  });
});

describeEachBackend(
  'metrics across gateways',
  (backend) => {
    it('a job enqueued through one gateway and run through another is timed by both', async () => {
      const url = backend.url();
      const clock = new ManualClock();
      const opened: Array<{ driver: Driver; engine: Engine; gateway: Gateway }> = [];
      try {
        for (let i = 0; i < 2; i++) {
          const driver = await createBackend(url);
          await (driver.events as { ready?: () => Promise<void> } | undefined)?.ready?.();
          const engine = new Engine({ driver, clock, onError: () => undefined });
          opened.push({ driver, engine, gateway: createGateway({ engine, driver, logger: false }) });
        }
        const call = (i: number) => (method: string, path: string, body?: unknown) =>
          Promise.resolve(
            opened[i]!.gateway.request(path, {
              method,
              headers: { 'Content-Type': 'application/openjobspec+json' },
              ...(body === undefined ? {} : { body: JSON.stringify(body) }),
            }),
          );
        const a = { call: call(0) };
        const b = { call: call(1) };
        const q = queueName('across');
        const pushed = (await (await a.call('POST', '/ojs/v1/jobs', { type: 'test.job', args: [], options: { queue: q } })).json()) as { job: { id: string } };
        clock.advance(1_000);
        expect((await b.call('POST', '/ojs/v1/workers/fetch', { queues: [q], worker_id: 'w1' })).status).toBe(200);
        clock.advance(2_000);
        expect((await b.call('POST', '/ojs/v1/workers/ack/batch', { acks: [{ job_id: pushed.job.id }] })).status).toBe(200);
        for (const h of [a, b]) {
          const text = await scrapeUntil(h, (t) => sample(t, `ojs_job_run_seconds_count{queue="${q}",outcome="completed"}`) === 1);
          expect(sample(text, `ojs_job_wait_seconds_sum{queue="${q}"}`)).toBe(1);
          expect(sample(text, `ojs_job_run_seconds_sum{queue="${q}",outcome="completed"}`)).toBe(2);
          expect(sample(text, `ojs_job_transitions_total{queue="${q}",from="none",to="available"}`)).toBe(1);
        }
      } finally {
        for (const { gateway, engine } of opened) {
          await gateway.close();
          await engine.close();
        }
      }
    });
  },
  [REDIS, POSTGRES],
);
