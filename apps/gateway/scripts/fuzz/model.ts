/**
 * The gateway fuzz model (issue 25): generated requests to every route, with every body field filled from a
 * pool of hostile values, and the properties each answer must hold. Used by the short suite
 * (test/fuzz.test.ts) and the long run (scripts/fuzz/run.ts); nothing here depends on a test runner.
 *
 * Properties: no 5xx except backend unavailability (503); every non-2xx is the OJS envelope with the exact
 * media type and `request_id` equal to the `X-Request-Id` header; a refused request (4xx) changes no job
 * (the sentinel jobs read back the same and the job count is unchanged); the gateway still answers after.
 */
import fc from 'fast-check';
import type { Engine } from '@ojskit/core';
import type { Driver } from '@ojskit/core/driver';

export const OJS_MEDIA_TYPE = 'application/openjobspec+json';

/** A route and the fields its body reads (`undefined`: no body). */
interface RouteShape {
  method: string;
  path: string;
  fields?: readonly string[];
  query?: readonly string[];
}

const ENQUEUE_FIELDS = [
  'type',
  'args',
  'id',
  'meta',
  'schema',
  'specversion',
  'options',
  'queue',
  'priority',
  'timeout',
  'scheduled_at',
  'expires_at',
  'retry',
  'retry_policy',
  'unique',
  'tags',
  'visibility_timeout',
  'visibility_timeout_ms',
  'pending',
  'delay_until',
  'timeout_ms',
  'rate_limit',
] as const;

/** Every served route (SSE streams only with methods that do not open a stream). */
export const ROUTES: readonly RouteShape[] = [
  { method: 'POST', path: '/ojs/v1/jobs', fields: ENQUEUE_FIELDS },
  { method: 'POST', path: '/ojs/v1/jobs/batch', fields: ['jobs'] },
  { method: 'GET', path: '/ojs/v1/jobs/:id' },
  { method: 'DELETE', path: '/ojs/v1/jobs/:id' },
  { method: 'POST', path: '/ojs/v1/jobs/:id/activate' },
  { method: 'PUT', path: '/ojs/v1/jobs/:id/progress', fields: ['progress', 'message', 'data', 'checkpoint'] },
  { method: 'GET', path: '/ojs/v1/jobs/:id/progress' },
  { method: 'POST', path: '/ojs/v1/workers/fetch', fields: ['queues', 'count', 'worker_id', 'visibility_timeout_ms', 'wait_ms'] },
  { method: 'POST', path: '/ojs/v1/workers/ack', fields: ['job_id', 'result', 'worker_id', 'attempt'] },
  { method: 'POST', path: '/ojs/v1/workers/ack/batch', fields: ['acks'] },
  { method: 'POST', path: '/ojs/v1/workers/nack', fields: ['job_id', 'error', 'requeue', 'worker_id', 'attempt'] },
  {
    method: 'POST',
    path: '/ojs/v1/workers/heartbeat',
    fields: ['worker_id', 'active_jobs', 'active_job_ids', 'job_id', 'visibility_timeout_ms', 'state', 'hostname', 'pid', 'queues', 'concurrency', 'labels'],
  },
  { method: 'POST', path: '/ojs/v1/workers/progress', fields: ['job_id', 'percentage', 'message', 'data'] },
  { method: 'GET', path: '/ojs/v1/queues', query: ['limit', 'offset', 'cursor'] },
  { method: 'GET', path: '/ojs/v1/queues/:name/stats' },
  { method: 'POST', path: '/ojs/v1/queues/:name/pause' },
  { method: 'POST', path: '/ojs/v1/queues/:name/resume' },
  { method: 'GET', path: '/ojs/v1/dead-letter', query: ['queue', 'type', 'limit', 'offset'] },
  { method: 'GET', path: '/ojs/v1/dead-letter/stats' },
  { method: 'POST', path: '/ojs/v1/dead-letter/retry', fields: ['filter', 'confirm'] },
  { method: 'GET', path: '/ojs/v1/dead-letter/:id' },
  { method: 'POST', path: '/ojs/v1/dead-letter/:id/retry', fields: ['override'] },
  { method: 'DELETE', path: '/ojs/v1/dead-letter/:id' },
  {
    method: 'POST',
    path: '/ojs/v1/cron',
    fields: ['name', 'expression', 'cron', 'timezone', 'overlap_policy', 'enabled', 'description', 'job_template', 'type', 'args', 'meta', 'options'],
  },
  { method: 'GET', path: '/ojs/v1/cron', query: ['enabled', 'limit', 'offset'] },
  { method: 'GET', path: '/ojs/v1/cron/:name' },
  { method: 'PATCH', path: '/ojs/v1/cron/:name', fields: ['enabled'] },
  { method: 'DELETE', path: '/ojs/v1/cron/:name' },
  { method: 'POST', path: '/ojs/v1/workflows', fields: ['type', 'name', 'options', 'steps', 'jobs', 'callbacks'] },
  { method: 'GET', path: '/ojs/v1/workflows/:id' },
  { method: 'DELETE', path: '/ojs/v1/workflows/:id' },
  { method: 'GET', path: '/ojs/v1/events', query: ['types', 'queues', 'job_types', 'job_id', 'after', 'limit'] },
  { method: 'GET', path: '/ojs/manifest' },
  { method: 'GET', path: '/ojs/v1/health' },
  { method: 'GET', path: '/health' },
  { method: 'GET', path: '/ready' },
  { method: 'GET', path: '/metrics' },
  { method: 'GET', path: '/ojs/v1/admin/stats' },
  { method: 'GET', path: '/ojs/v1/admin/queues', query: ['page', 'per_page'] },
  { method: 'GET', path: '/ojs/v1/admin/queues/:name' },
  { method: 'POST', path: '/ojs/v1/admin/queues/:name/pause' },
  { method: 'POST', path: '/ojs/v1/admin/queues/:name/resume' },
  { method: 'GET', path: '/ojs/v1/admin/jobs/:id' },
  { method: 'POST', path: '/ojs/v1/admin/jobs/:id/cancel' },
  { method: 'GET', path: '/ojs/v1/admin/dead-letter', query: ['page', 'per_page'] },
  { method: 'GET', path: '/ojs/v1/admin/dead-letter/stats' },
  { method: 'POST', path: '/ojs/v1/admin/dead-letter/retry', fields: ['filter', 'confirm'] },
  { method: 'POST', path: '/ojs/v1/admin/dead-letter/:id/retry' },
  { method: 'DELETE', path: '/ojs/v1/admin/dead-letter/:id' },
  { method: 'POST', path: '/ojs/v1/admin/reset' },
  // Paths of event streams, with methods that do not open one.
  { method: 'POST', path: '/ojs/v1/events/stream' },
  { method: 'DELETE', path: '/ojs/v1/jobs/:id/events' },
  { method: 'PUT', path: '/ojs/v1/queues/:name/events' },
];

/** Ids and names the requests may point at: the sentinel jobs' ids are added at run time. */
export interface FuzzPools {
  jobIds: string[];
  queues: string[];
}

const deep = (n: number): unknown => JSON.parse(`${'['.repeat(n)}${']'.repeat(n)}`);

/** Strings that break things: NUL, lone surrogates, control and bidi characters, huge, path tricks. */
const hostileString = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.constantFrom('', '\u0000', '\ud800', '\udfff', 'a\u0000b', '\u202e', '../..', '%00', '%2e%2e', '__proto__', 'constructor', 'NaN', '-1', 'null'),
  fc.constantFrom('x'.repeat(300), 'é'.repeat(2_000)),
  fc.constantFrom('+P300000Y', '+P200000Y', '+PT5S', '2026-02-31T00:00:00Z', '9999-12-31T23:59:59Z', '0000-01-01T00:00:00Z', 'PT1S', '5m'),
);

const hostileNumber = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(0, -1, 1e308, -1e308, 2 ** 31, 2 ** 53, 2 ** 31 - 1, 0.5, -0),
);

/** Any JSON value, with the hostile strings and numbers mixed in, and sometimes nested too deep. */
export function hostileValue(pools: FuzzPools): fc.Arbitrary<unknown> {
  const leaf = fc.oneof(
    { weight: 3, arbitrary: hostileString },
    { weight: 3, arbitrary: hostileNumber },
    { weight: 1, arbitrary: fc.constantFrom(true, false, null) },
    { weight: 2, arbitrary: fc.constantFrom(...pools.jobIds, ...pools.queues, 'a.b', 'fuzz.job', 'default') },
  );
  return fc.oneof(
    { weight: 6, arbitrary: leaf },
    { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
    { weight: 2, arbitrary: fc.array(leaf, { maxLength: 4 }) },
    { weight: 2, arbitrary: fc.dictionary(hostileString, leaf, { maxKeys: 4 }) },
    { weight: 1, arbitrary: fc.constantFrom(deep(70), deep(3_000), { a: deep(65) }) },
  );
}

/** A value that is sometimes valid for `field`, so requests get past the first check and deeper. */
function fieldValue(field: string, pools: FuzzPools): fc.Arbitrary<unknown> {
  const plausible: Record<string, fc.Arbitrary<unknown>> = {
    type: fc.constantFrom('fuzz.job', 'chain', 'group', 'batch', 'a.b'),
    args: fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 3 }),
    queue: fc.constantFrom(...pools.queues),
    queues: fc.constant(pools.queues.slice(0, 2)),
    job_id: fc.constantFrom(...pools.jobIds),
    jobs: fc.array(fc.record({ type: fc.constant('fuzz.job'), args: fc.constant([]), queue: fc.constantFrom(...pools.queues) }), {
      minLength: 1,
      maxLength: 3,
    }),
    steps: fc.array(fc.record({ type: fc.constant('fuzz.job'), args: fc.constant([]) }), { minLength: 1, maxLength: 2 }),
    acks: fc.array(fc.record({ job_id: fc.constantFrom(...pools.jobIds) }), { minLength: 1, maxLength: 3 }),
    name: fc.constantFrom('fuzz-cron', 'wf', 'x'),
    expression: fc.constantFrom('* * * * *', '@hourly', 'nope'),
    confirm: fc.constant(true),
    worker_id: fc.constantFrom('w1', 'fuzz-worker'),
  };
  // A valid long-poll would hold each FETCH for up to 2 s of real time: only invalid or tiny waits.
  if (field === 'wait_ms') return fc.constantFrom(-1, 0, 1, 0.5, 1.5, '5', null, 'x', [], {});
  const valid = plausible[field];
  return valid ? fc.oneof({ weight: 1, arbitrary: valid }, { weight: 2, arbitrary: hostileValue(pools) }) : hostileValue(pools);
}

/** One generated request. */
export interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

/** A string as a path segment (a lone surrogate cannot be percent-encoded: it becomes its escape text). */
function pathSegment(text: string): string {
  try {
    return encodeURIComponent(text).slice(0, 300) || 'x';
  } catch {
    return encodeURIComponent(JSON.stringify(text).slice(1, -1));
  }
}

const SSE_PATH = /^\/ojs\/v1\/(events\/stream|jobs\/[^/]+\/events|queues\/[^/]+\/events)$/;

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const;

export function requestArbitrary(pools: FuzzPools): fc.Arbitrary<FuzzRequest> {
  const segment = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...pools.jobIds, ...pools.queues) },
    { weight: 2, arbitrary: hostileString.map(pathSegment) },
    { weight: 1, arbitrary: fc.constantFrom('batch', 'stats', 'retry', '0190c8a4-6a2b-7c3d-8e4f-5a6b7c8d9e0f', 'UPPER', '-', '.') },
  );
  return fc
    .record({
      route: fc.constantFrom(...ROUTES),
      wrongMethod: fc.option(fc.constantFrom(...METHODS), { freq: 8 }),
      segment,
      query: fc.dictionary(
        fc.constantFrom('limit', 'offset', 'cursor', 'types', 'queues', 'after', 'queue', 'type', 'page', 'per_page', 'enabled', 'state', 'job_id'),
        hostileString,
        { maxKeys: 3 },
      ),
      bodyKind: fc.constantFrom('fields', 'fields', 'fields', 'raw', 'none', 'json'),
      fields: fc.integer({ min: 0, max: 2 ** 30 }),
      extra: fc.dictionary(hostileString, hostileValue(pools), { maxKeys: 2 }),
      raw: fc.oneof(fc.string({ unit: 'binary', maxLength: 40 }), fc.constantFrom('{', '[]', '42', 'null', '{"a":1,}', '\u0000', '{"type":"a.b","args":[]}')),
      json: hostileValue(pools),
      contentType: fc.constantFrom(
        'application/json',
        'application/json',
        OJS_MEDIA_TYPE,
        'application/json; charset=utf-8',
        undefined,
        'text/plain',
        'application/x-www-form-urlencoded',
      ),
      values: fc.array(fc.nat(), { minLength: 24, maxLength: 24 }),
      requestId: fc.option(fc.oneof(fc.constantFrom('fuzz-1', 'x'.repeat(300)), fc.string({ maxLength: 10 })), { freq: 4 }),
    })
    .chain((r) => {
      const fieldNames = r.route.fields ?? [];
      const chosen = fieldNames.filter((_, i) => (r.fields >> i) & 1 || i < 2);
      return fc.tuple(
        fc.constant(r),
        fc.tuple(...chosen.map((f) => fieldValue(f, pools))).map((values) => Object.fromEntries(chosen.map((f, i) => [f, values[i]]))),
      );
    })
    .map(([r, body]) => {
      let path = r.route.path.replace(/:(id|name)/g, () => r.segment);
      let method = r.wrongMethod ?? r.route.method;
      // A GET (or HEAD) on an event stream opens a stream that never ends: another method there instead.
      if ((method === 'GET' || method === 'HEAD') && SSE_PATH.test(path)) method = 'PATCH';
      const query = new URLSearchParams(r.query).toString();
      if (query) path += `?${query}`;
      const headers: Record<string, string> = {};
      if (r.requestId !== null && /^[\x20-\xff]*$/.test(r.requestId)) headers['X-Request-Id'] = r.requestId;
      let text: string | undefined;
      if (method !== 'GET' && method !== 'HEAD') {
        if (r.bodyKind === 'fields') text = JSON.stringify({ ...body, ...r.extra });
        else if (r.bodyKind === 'raw') text = r.raw;
        else if (r.bodyKind === 'json') text = JSON.stringify(r.json) ?? 'null';
      }
      if (text !== undefined && r.contentType !== undefined) headers['Content-Type'] = r.contentType;
      return { method, path, headers, ...(text !== undefined ? { body: text } : {}) };
    });
}

/** What a fuzz run saw. */
export interface FuzzCounts {
  requests: number;
  byStatus: Record<string, number>;
  violations: string[];
}

export function newCounts(): FuzzCounts {
  return { requests: 0, byStatus: {}, violations: [] };
}

/** A request not answered by then counts as a hang. */
const ANSWER_TIMEOUT_MS = 10_000;

/** What changes a job's stored state: a refused request must leave all of it as it was. */
async function snapshot(engine: Engine, driver: Driver, sentinels: readonly string[]): Promise<string> {
  const jobs = await Promise.all(sentinels.map(async (id) => JSON.stringify((await engine.getJob(id).catch(() => ({ job: null }))).job)));
  const { total } = await driver.jobList({ limit: 1, offset: 0 });
  return `${total}|${jobs.join('|')}`;
}

/** Sends one request through `send` and checks every property; failures are recorded in `counts.violations`. */
export async function checkRequest(
  send: (request: FuzzRequest) => Promise<Response>,
  request: FuzzRequest,
  context: { engine: Engine; driver: Driver; sentinels: readonly string[] },
  counts: FuzzCounts,
): Promise<void> {
  const mutating = request.method !== 'GET' && request.method !== 'HEAD' && request.method !== 'OPTIONS';
  const before = mutating ? await snapshot(context.engine, context.driver, context.sentinels) : undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const answered = await Promise.race([
    send(request).then(async (res) => ({ res, text: await res.text() })),
    new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ANSWER_TIMEOUT_MS))),
  ]);
  clearTimeout(timer);
  if (answered === undefined) {
    counts.requests++;
    counts.violations.push(`no answer within ${ANSWER_TIMEOUT_MS} ms: ${request.method} ${request.path.slice(0, 120)} ${request.body?.slice(0, 200) ?? ''}`);
    return;
  }
  const { res, text } = answered;
  counts.requests++;
  const key = `${Math.floor(res.status / 100)}xx`;
  counts.byStatus[key] = (counts.byStatus[key] ?? 0) + 1;
  const where = `${request.method} ${request.path.slice(0, 120)} ${request.body === undefined ? '' : request.body.slice(0, 200)}`;
  const fail = (what: string): void => {
    counts.violations.push(`${what}: ${where} → ${res.status} ${text.slice(0, 300)}`);
  };
  if (res.status >= 500 && res.status !== 503) fail('5xx');
  if (res.status >= 400 && request.method !== 'HEAD') {
    if (res.headers.get('content-type') !== OJS_MEDIA_TYPE) fail('error without the OJS media type');
    let error: any;
    try {
      error = JSON.parse(text).error;
    } catch {
      fail('error body is not JSON');
    }
    if (error !== undefined) {
      if (typeof error.code !== 'string' || typeof error.message !== 'string' || error.message.length === 0 || typeof error.retryable !== 'boolean')
        fail('not the OJS envelope');
      if (error.request_id !== res.headers.get('x-request-id')) fail('request_id differs from X-Request-Id');
    } else if (text.length > 0) fail('error without an error object');
  }
  if (text.length > 64 * 1024 && res.status >= 400) fail('error body over 64 KiB');
  if (before !== undefined && res.status >= 400 && res.status < 500) {
    const after = await snapshot(context.engine, context.driver, context.sentinels);
    if (after !== before) fail('a refused request changed a job');
  }
}

/**
 * Creates the sentinel jobs the requests aim at: available, active, scheduled, dead-lettered, completed,
 * in their own queue. Returns their ids.
 */
export async function seedSentinels(engine: Engine, queue: string): Promise<string[]> {
  const ids: string[] = [];
  const push = async (extra: Record<string, unknown> = {}): Promise<string> => {
    const { job } = await engine.enqueue({ type: 'fuzz.sentinel', args: [1], options: { queue, ...extra } });
    ids.push(job.id);
    return job.id;
  };
  await push();
  await push({ scheduled_at: '+P1D' });
  const activeId = await push();
  const deadId = await push({ retry: { max_attempts: 1, on_exhaustion: 'dead_letter' } });
  const doneId = await push();
  const { jobs } = await engine.fetch({ queues: [queue], count: 10, worker_id: 'sentinel' });
  for (const job of jobs) {
    if (job.id === deadId) await engine.nack({ job_id: job.id, worker_id: 'sentinel', error: { code: 'x', message: 'dead' } });
    else if (job.id === doneId) await engine.ack({ job_id: job.id, worker_id: 'sentinel' });
    else if (job.id !== activeId) await engine.nack({ job_id: job.id, worker_id: 'sentinel', requeue: true });
  }
  return ids;
}
