/** Driving jobs into states over HTTP, for route tests. */
import { expect } from 'vitest';
import type { Harness } from './harness.js';

let counter = 0;
/** A queue name unique to the test run. */
export function queueName(prefix = 'q'): string {
  counter += 1;
  return `${prefix}-${process.pid}-${counter}`;
}

export async function push(h: Harness, queue: string, extra: Record<string, unknown> = {}): Promise<any> {
  const { res, body } = await h.json('POST', '/ojs/v1/jobs', { type: 'test.job', args: [1], ...extra, options: { queue, ...(extra['options'] as object) } });
  expect(res.status, JSON.stringify(body)).toBe(201);
  return body.job;
}

export async function claim(h: Harness, queue: string, extra: Record<string, unknown> = {}): Promise<any> {
  const { res, body } = await h.json('POST', '/ojs/v1/workers/fetch', { queues: [queue], worker_id: 'w1', ...extra });
  expect(res.status).toBe(200);
  expect(body.jobs.length).toBeGreaterThan(0);
  return body.jobs[0];
}

/** A job in the dead-letter queue. */
export async function deadLetter(h: Harness, queue: string): Promise<any> {
  const job = await push(h, queue, { options: { queue, retry: { max_attempts: 1, on_exhaustion: 'dead_letter' } } });
  await claim(h, queue);
  const { res, body } = await h.json('POST', '/ojs/v1/workers/nack', { job_id: job.id, worker_id: 'w1', error: { code: 'boom', message: 'failed' } });
  expect(res.status).toBe(200);
  expect(body.dead_lettered).toBe(true);
  return body.job;
}

/** Reads a job straight from the engine (not through the route under test). */
export async function stored(h: Harness, id: string): Promise<any> {
  return (await h.engine.getJob(id)).job;
}
