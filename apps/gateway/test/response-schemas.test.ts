/**
 * Every route's real answers validate against the zod schema its OpenAPI entry documents (core's wire schemas):
 * a scenario calls each route, each JSON answer is parsed with the schema registered for its route and status
 * (errors included) and must name every field served; the last test fails when a documented JSON answer was never produced and checked.
 */
import { expect, it } from 'vitest';
import type { z } from '@hono/zod-openapi';
import { describeEachBackend } from './support/backends.js';
import { useHarness, type Harness } from './support/harness.js';
import { claim, deadLetter, push, queueName } from './support/flows.js';

interface DocumentedRoute {
  method: string;
  path: string;
  pattern: RegExp;
  /** Status → the schema of its JSON body. */
  schemas: Map<number, z.ZodType>;
}

/** The routes as registered in the OpenAPI registry, literal paths before templated ones (`/jobs/batch` before `/jobs/{id}`). */
function documentedRoutes(h: Harness): DocumentedRoute[] {
  const routes: DocumentedRoute[] = [];
  for (const definition of h.gateway.openAPIRegistry.definitions) {
    if (definition.type !== 'route') continue;
    const { method, path, responses } = definition.route;
    const schemas = new Map<number, z.ZodType>();
    for (const [status, response] of Object.entries(responses)) {
      const content = 'content' in response ? response.content : undefined;
      const media = content?.['application/openjobspec+json'];
      const schema = media && 'schema' in media ? media.schema : undefined;
      if (schema) schemas.set(Number(status), schema as z.ZodType);
    }
    const pattern = new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}$`);
    routes.push({ method: method.toUpperCase(), path, pattern, schemas });
  }
  return routes.sort((a, b) => (a.path.match(/\{/g)?.length ?? 0) - (b.path.match(/\{/g)?.length ?? 0));
}

describeEachBackend('every route answers what its schema documents', (backend) => {
  const h = useHarness(backend);
  let routes: DocumentedRoute[] = [];
  /** `METHOD path status` of every answer checked. */
  const checked = new Set<string>();

  /** Calls a route and checks its JSON answer against the documented schema of that status; returns the body. */
  async function call(method: string, url: string, body?: unknown, expected?: number): Promise<any> {
    if (routes.length === 0) routes = documentedRoutes(h);
    const { res, body: answer } = await h.json(method, url, body);
    if (expected !== undefined) expect(res.status, `${method} ${url}: ${JSON.stringify(answer)}`).toBe(expected);
    const path = url.split('?')[0]!;
    const route = routes.find((r) => r.method === method && r.pattern.test(path));
    expect(route, `${method} ${path} is not documented`).toBeDefined();
    const schema = route!.schemas.get(res.status);
    expect(schema, `${method} ${route!.path} answered ${res.status}, which it does not document`).toBeDefined();
    const parsed = schema!.safeParse(answer);
    expect(parsed.success ? [] : parsed.error.issues, `${method} ${route!.path} ${res.status}: ${JSON.stringify(answer).slice(0, 400)}`).toEqual([]);
    // A closed schema drops what it does not name: an answer that loses a field serves something undocumented.
    expect(parsed.data, `${method} ${route!.path} ${res.status} serves fields its schema does not document`).toEqual(answer);
    checked.add(`${method} ${route!.path} ${res.status}`);
    return answer;
  }

  it('system routes', async () => {
    await call('GET', '/ojs/manifest', undefined, 200);
    await call('GET', '/ojs/v1/health', undefined, 200);
    await call('GET', '/health', undefined, 200);
    await call('GET', '/ready', undefined, 200);
  });

  it('job routes', async () => {
    const q = queueName('shape');
    const created = await call('POST', '/ojs/v1/jobs', { type: 'test.job', args: [1], options: { queue: q, tags: ['t'] } }, 201);
    await call('POST', '/ojs/v1/jobs', { type: 'test.job', args: [1], options: { queue: q, unique: { keys: ['type', 'args'], on_conflict: 'ignore' } } }, 201);
    await call('POST', '/ojs/v1/jobs', { type: 'test.job', args: [1], options: { queue: q, unique: { keys: ['type', 'args'], on_conflict: 'ignore' } } }, 200);
    await call('POST', '/ojs/v1/jobs/batch', { jobs: [{ type: 'test.job', args: [], options: { queue: q } }] }, 201);
    await call('GET', `/ojs/v1/jobs/${created.job.id}`, undefined, 200);
    await call('GET', `/ojs/v1/jobs/${created.job.id}/progress`, undefined, 200);
    await call('PUT', `/ojs/v1/jobs/${created.job.id}/progress`, { progress: 0.5, message: 'half' }, 200);
    await call('GET', `/ojs/v1/jobs/${created.job.id}/history`);
    const pending = await call('POST', '/ojs/v1/jobs', { type: 'test.job', args: [], options: { queue: q, pending: true } }, 201);
    await call('POST', `/ojs/v1/jobs/${pending.job.id}/activate`, undefined, 200);
    await call('DELETE', `/ojs/v1/jobs/${pending.job.id}`, undefined, 200);
    // Errors are documented too: the envelope.
    await call('GET', '/ojs/v1/jobs/019b0000-0000-7000-8000-000000000001', undefined, 404);
    await call('POST', '/ojs/v1/jobs', { type: 'Bad Type', args: [] }, 400);
  });

  it('worker routes', async () => {
    const q = queueName('shape');
    for (let i = 0; i < 4; i++) await push(h, q);
    await call('POST', '/ojs/v1/workers/fetch', { queues: [q], count: 1, worker_id: 'w1' }, 200);
    const [a, b, c] = (await call('POST', '/ojs/v1/workers/fetch', { queues: [q], count: 3, worker_id: 'w1' }, 200)).jobs;
    await call('POST', '/ojs/v1/workers/heartbeat', { worker_id: 'w1', active_job_ids: [a.id, b.id, c.id] }, 200);
    await call('POST', '/ojs/v1/workers/progress', { job_id: a.id, percentage: 50 }, 200);
    await call('POST', '/ojs/v1/workers/ack', { job_id: a.id, worker_id: 'w1', result: { ok: true } }, 200);
    await call('POST', '/ojs/v1/workers/ack/batch', { acks: [{ job_id: b.id, worker_id: 'w1' }, { job_id: a.id }] }, 200);
    await call('POST', '/ojs/v1/workers/nack', { job_id: c.id, worker_id: 'w1', error: { code: 'boom', message: 'failed' } }, 200);
    await call('POST', '/ojs/v1/workers/ack', { job_id: a.id }, 409);
  });

  it('queue, dead-letter, cron, workflow and event routes', async () => {
    const q = queueName('shape');
    await push(h, q);
    await call('GET', '/ojs/v1/queues', undefined, 200);
    await call('GET', `/ojs/v1/queues/${q}/stats`, undefined, 200);
    await call('POST', `/ojs/v1/queues/${q}/pause`, undefined, 200);
    await call('POST', `/ojs/v1/queues/${q}/resume`, undefined, 200);

    const dq = queueName('dlq');
    const dead = [await deadLetter(h, dq), await deadLetter(h, dq), await deadLetter(h, dq)];
    await call('GET', `/ojs/v1/dead-letter?queue=${dq}`, undefined, 200);
    await call('GET', '/ojs/v1/dead-letter/stats', undefined, 200);
    await call('GET', `/ojs/v1/dead-letter/${dead[0].id}`, undefined, 200);
    await call('POST', `/ojs/v1/dead-letter/${dead[0].id}/retry`, undefined, 200);
    await call('DELETE', `/ojs/v1/dead-letter/${dead[1].id}`, undefined, 200);
    await call('POST', '/ojs/v1/dead-letter/retry', { filter: { queue: dq }, confirm: true }, 200);

    const name = queueName('cron');
    await call('POST', '/ojs/v1/cron', { name, expression: '*/5 * * * *', job_template: { type: 'test.job', args: [], options: { queue: q } } }, 201);
    await call('POST', '/ojs/v1/cron', { name, cron: '*/10 * * * *', type: 'test.job', args: [1] }, 200);
    await call('GET', '/ojs/v1/cron', undefined, 200);
    await call('GET', `/ojs/v1/cron/${name}`, undefined, 200);
    await call('PATCH', `/ojs/v1/cron/${name}`, { enabled: false }, 200);
    await call('DELETE', `/ojs/v1/cron/${name}`, undefined, 200);

    const chain = await call(
      'POST',
      '/ojs/v1/workflows',
      {
        type: 'chain',
        name: 'c',
        steps: [
          { type: 'test.a', args: [] },
          { type: 'test.b', args: [] },
        ],
      },
      201,
    );
    await call('POST', '/ojs/v1/workflows', { type: 'group', jobs: [{ type: 'test.a', args: [] }] }, 201);
    await call('GET', `/ojs/v1/workflows/${chain.id}`, undefined, 200);
    await call('DELETE', `/ojs/v1/workflows/${chain.id}`, undefined, 200);

    await call('GET', '/ojs/v1/events?limit=50', undefined, 200);
  });

  it('admin and bulk routes', async () => {
    const q = queueName('shape');
    const jobs = [await push(h, q), await push(h, q), await push(h, q)];
    await claim(h, q, { count: 1 });
    await call('POST', '/ojs/v1/workers/heartbeat', { worker_id: 'w1', hostname: 'h', pid: 1, queues: [q], concurrency: 2 }, 200);
    await call('GET', '/ojs/v1/admin/stats', undefined, 200);
    await call('GET', '/ojs/v1/admin/queues', undefined, 200);
    await call('GET', `/ojs/v1/admin/queues/${q}`, undefined, 200);
    await call('POST', `/ojs/v1/admin/queues/${q}/pause`, undefined, 200);
    await call('POST', `/ojs/v1/admin/queues/${q}/resume`, undefined, 200);
    await call('GET', `/ojs/v1/admin/queues/${q}/config`, undefined, 200);
    await call('PUT', `/ojs/v1/admin/queues/${q}/config`, { backpressure: { max_depth: 100 }, concurrency: 2, retention: { completed_ms: 1000 } }, 200);
    await call('PUT', `/ojs/v1/admin/queues/${q}/config`, { backpressure: { max_depth: 100 }, rate_limit: { max_per_second: 50, concurrency: 5 } }, 200);
    await call('GET', `/ojs/v1/admin/queues/${q}/rate-limits`, undefined, 200);
    await call('GET', '/ojs/v1/admin/workers', undefined, 200);
    await call('POST', '/ojs/v1/admin/workers/w-shape/quiet', undefined, 200);
    await call('POST', '/ojs/v1/admin/workers/w-shape/terminate', undefined, 200);
    await call('GET', `/ojs/v1/admin/jobs?queue=${q}`, undefined, 200);
    await call('GET', `/ojs/v1/admin/jobs/${jobs[0].id}`, undefined, 200);
    await call('GET', '/ojs/v1/admin/overdue', undefined, 200);

    const dq = queueName('dlq');
    const dead = [await deadLetter(h, dq), await deadLetter(h, dq), await deadLetter(h, dq)];
    await call('GET', '/ojs/v1/admin/dead-letter', undefined, 200);
    await call('GET', '/ojs/v1/admin/dead-letter/stats', undefined, 200);
    await call('POST', `/ojs/v1/admin/dead-letter/${dead[0].id}/retry`, undefined, 200);
    await call('POST', '/ojs/v1/admin/dead-letter/retry', { filter: { queue: dq }, confirm: true }, 200);
    const discarded = await deadLetter(h, queueName('dlq'));
    await call('POST', `/ojs/v1/admin/jobs/${discarded.id}/retry`, undefined, 200);
    await call('POST', `/ojs/v1/admin/jobs/${jobs[1].id}/cancel`, undefined, 200);
    for (const action of ['retry', 'cancel', 'delete']) await call('POST', `/ojs/v1/admin/jobs/bulk/${action}`, { filter: { queue: q }, confirm: true }, 200);

    const bq = queueName('bulk');
    await call('POST', '/ojs/v1/jobs/bulk', { jobs: [{ type: 'test.job', args: [], options: { queue: bq } }] }, 201);
    await call(
      'POST',
      '/ojs/v1/jobs/bulk',
      {
        jobs: [
          { type: 'test.job', args: [], options: { queue: bq } },
          { type: 'Bad', args: [] },
        ],
      },
      207,
    );
    const ids = (await call('GET', `/ojs/v1/admin/jobs?queue=${bq}`, undefined, 200)).items.map((job: { id: string }) => job.id);
    // Each bulk action once all succeeding (200) and once with a job that does not exist (207).
    const missing = '019b0000-0000-7000-8000-000000000001';
    await call('POST', '/ojs/v1/jobs/bulk/cancel', { job_ids: ids }, 200);
    await call('POST', '/ojs/v1/jobs/bulk/cancel', { job_ids: [...ids, missing] }, 207);
    const retried = await deadLetter(h, queueName('dlq'));
    await call('POST', '/ojs/v1/jobs/bulk/retry', { job_ids: [retried.id] }, 200);
    await call('POST', '/ojs/v1/jobs/bulk/retry', { job_ids: [retried.id, missing] }, 207);
    await call('POST', '/ojs/v1/jobs/bulk/delete', { job_ids: ids }, 200);
    await call('POST', '/ojs/v1/jobs/bulk/delete', { job_ids: [...ids, missing] }, 207);
  });

  it('checked a real answer for every documented JSON response of every route', () => {
    const documented = routes.flatMap((route) =>
      [...route.schemas.keys()].filter((status) => status < 300).map((status) => `${route.method} ${route.path} ${status}`),
    );
    // A backend without the history capability answers `422 unsupported` there (checked against the error envelope).
    const unproducible = h.driver.capabilities.history === true ? [] : ['GET /ojs/v1/jobs/{id}/history 200'];
    const missing = documented.filter((key) => !checked.has(key) && !unproducible.includes(key));
    expect(missing).toEqual([]);
  });
});
