/**
 * The request schemas the gateway declares (batch and bulk enqueue, bulk and admin actions, queue configuration,
 * dead-letter bulk retry, cron, workflow) and the engine that validates those bodies accept and refuse the same
 * bodies: a corpus of valid and invalid ones, then every named field set to each JSON type in turn. Core's own
 * request kinds (enqueue, FETCH, ACK, FAIL, BEAT, progress) are held to the same in core's
 * `request-schemas-agree.test.ts`. The engine "refuses" with a 400, 413 or 422 OJS error; a 404 or 409 is a
 * verdict on the store, not on the body, and counts as accepted.
 */
import { describe, expect, it } from 'vitest';
import type { z } from '@hono/zod-openapi';
import { OjsError } from '@ojskit/core';
import { MEMORY } from './support/backends.js';
import { useHarness, type Harness } from './support/harness.js';
import { deadLetter, queueName } from './support/flows.js';
import { AdminBulkBody, BulkEnqueueBody, BulkJobsBody, QueueConfigBody } from '../src/schemas/admin.js';
import { BatchEnqueueBody, BulkActionBody, CronPatchBody, CronRegisterBody, DeadLetterRetryBody, WorkflowBody } from '../src/schemas/bodies.js';

const MISSING = '019b0000-0000-7000-8000-000000000001';
const JOB = { type: 'test.job', args: [] };
/** Not objects: the router refuses these before the engine sees them, and so does every schema. */
const NOT_OBJECTS: unknown[] = [null, 42, 'text', true, [], [{}]];
const PROBES: unknown[] = [null, '', 'x', 0, -1, 1, 1.5, true, [], ['x'], [1], {}, { a: 1 }];

interface Kind {
  name: string;
  schema: z.ZodType;
  run(h: Harness, body: unknown): Promise<unknown>;
  base: Record<string, unknown>;
  valid: unknown[];
  invalid: unknown[];
  /** `<field> <probe>` of the sweep only the engine refuses, with the rule a JSON Schema does not state. */
  engineOnly?: Record<string, string>;
}

const cronName = () => queueName('cron');
const cronBase = () => ({ name: cronName(), expression: '0 * * * *', job_template: JOB });

const KINDS: Kind[] = [
  {
    name: 'batch enqueue',
    schema: BatchEnqueueBody,
    run: (h, body) => h.engine.enqueueBatch(body),
    base: { jobs: [JOB] },
    valid: [{ jobs: [JOB, { ...JOB, options: { queue: 'q2' } }] }],
    invalid: [{}, { jobs: [] }, { jobs: {} }, { jobs: [{}] }, { jobs: [JOB, { type: 'Bad', args: [] }] }, { jobs: null }],
  },
  {
    name: 'bulk enqueue',
    schema: BulkEnqueueBody,
    run: (h, body) => h.engine.enqueueBulk(body),
    base: { jobs: [JOB] },
    valid: [
      { jobs: [JOB], atomicity: 'atomic' },
      { jobs: [JOB], atomicity: 'partial' },
    ],
    invalid: [{}, { jobs: [] }, { jobs: [JOB], atomicity: 'some' }, { jobs: 'x' }],
  },
  {
    name: 'bulk jobs',
    schema: BulkJobsBody,
    run: (h, body) => h.engine.bulkJobs('cancel', body),
    base: { job_ids: [MISSING] },
    valid: [{ job_ids: [MISSING] }, { filter: { queue: 'nothing-here' }, confirm: true }, { job_ids: [MISSING], atomicity: 'partial' }],
    invalid: [{ job_ids: [] }, { job_ids: [MISSING], atomicity: 'atomic' }, { filter: { queue: 'q' }, confirm: false }],
  },
  {
    name: 'admin bulk',
    schema: AdminBulkBody,
    run: (h, body) => h.engine.adminBulk('cancel', body),
    base: { filter: { queue: 'nothing-here' }, confirm: true },
    valid: [{ confirm: true, filter: { queue: 'nothing-here', state: ['available', 'scheduled'], type: 't' } }],
    invalid: [{}, { filter: { queue: 'q' } }, { filter: { queue: 'q' }, confirm: 'yes' }],
  },
  {
    name: 'queue config',
    schema: QueueConfigBody,
    run: (h, body) => h.engine.setQueueConfig(queueName('config'), body),
    base: {},
    valid: [
      { backpressure: { max_depth: 10, warning_threshold: 0.5, retry_after_seconds: 2 } },
      { max_depth: null, concurrency: null, retention: null },
      { concurrency: 3, retention: { completed_ms: 1000 } },
      { age_boost: { interval_ms: 1000 } },
      { age_boost: { interval: 'PT5M' } },
      { age_boost: { interval: '5m' } },
      { age_boost: { interval_ms: 2_592_000_000 } },
      { age_boost: { interval_ms: null } },
      { age_boost: { interval: null } },
      { age_boost: {} },
      { age_boost: null },
      { history: false },
      { history: true },
      { history: null },
    ],
    invalid: [
      { max_depth: -1 },
      { concurrency: 0 },
      { backpressure: { warning_threshold: 2 } },
      { retention: { completed_ms: -1 } },
      { age_boost: { interval_ms: 0 } },
      { age_boost: { interval_ms: 1.5 } },
      { age_boost: { step: 1 } },
      // the engine's rules for interval and the pair, held by core's AgeBoostInputSchema too
      { age_boost: { interval: 'soon' } },
      { age_boost: { interval: '' } },
      { age_boost: { interval: 'PT0S' } },
      { age_boost: { interval: 'P31D' } },
      { age_boost: { interval: 5 } },
      { age_boost: { interval_ms: 2_592_000_001 } },
      { age_boost: { interval_ms: 1000, interval: '5m' } },
      { age_boost: { interval_ms: null, interval: '5m' } },
      { age_boost: 5 },
      { history: 'no' },
      { history: 0 },
    ],
  },
  {
    name: 'dead-letter bulk retry',
    schema: BulkActionBody,
    run: (h, body) => h.engine.retryDeadLetterBulk(body),
    base: { filter: { queue: 'nothing-here' }, confirm: true },
    valid: [{ confirm: true }, { confirm: true, filter: { queue: 'nothing-here', type: 't', error_type: 'boom' } }],
    invalid: [{}, { confirm: false }, { filter: { queue: 'q' } }],
  },
  {
    name: 'cron register',
    schema: CronRegisterBody,
    run: (h, body) => h.engine.registerCron(body),
    get base() {
      return cronBase();
    },
    valid: [
      { name: 'flat-form', cron: '*/5 * * * *', type: 'test.job', args: [1] },
      { ...cronBase(), timezone: 'UTC', overlap_policy: 'skip', enabled: false },
      // The protocol's alias of cancel_previous.
      { ...cronBase(), overlap_policy: 'cancel' },
    ],
    invalid: [
      {},
      { name: 'no-expression', job_template: JOB },
      { ...cronBase(), overlap_policy: 'sometimes' },
      { ...cronBase(), enabled: 'yes' },
      { ...cronBase(), type: 5 },
      { ...cronBase(), cron: ['* * * * *'] },
    ],
    engineOnly: {
      'expression ""': 'cron syntax (5 fields or a shorthand)',
      'expression "x"': 'cron syntax (5 fields or a shorthand)',
      'timezone ""': 'an IANA zone name the runtime knows',
      'timezone "x"': 'an IANA zone name the runtime knows',
    },
  },
  {
    name: 'workflow',
    schema: WorkflowBody,
    run: (h, body) => h.engine.createWorkflow(body),
    base: { type: 'chain', steps: [JOB] },
    valid: [
      { type: 'group', jobs: [JOB, JOB], name: 'g' },
      { type: 'batch', jobs: [JOB], callbacks: { on_complete: JOB } },
    ],
    invalid: [{}, { type: 'tree', steps: [JOB] }, { type: 'chain', steps: [{}] }, { type: 'chain', steps: 'x' }, { type: 'chain', steps: [JOB], jobs: [JOB] }],
  },
];

function isBodyRefusal(error: unknown): boolean {
  if (!(error instanceof OjsError)) throw error;
  return error.status === 400 || error.status === 413 || error.status === 422;
}

async function engineAccepts(h: Harness, kind: Kind, body: unknown): Promise<boolean> {
  try {
    await kind.run(h, body);
    return true;
  } catch (error) {
    return !isBodyRefusal(error);
  }
}

function schemaKeys(schema: z.ZodType): string[] {
  const shape = (schema as unknown as { _zod: { def: { shape?: Record<string, unknown> } } })._zod.def.shape;
  return shape ? Object.keys(shape) : [];
}

describe('gateway request schemas and the engine agree [memory]', () => {
  const h = useHarness(MEMORY);

  for (const kind of KINDS) {
    it(`${kind.name}: the corpus gets one verdict from both`, async () => {
      const disagreements: string[] = [];
      const cases = [...kind.valid.map((body) => [body, true] as const), ...[...kind.invalid, ...NOT_OBJECTS].map((body) => [body, false] as const)];
      for (const [body, expected] of cases) {
        const engine = await engineAccepts(h, kind, body);
        const schema = kind.schema.safeParse(body).success;
        if (engine !== expected || schema !== expected) disagreements.push(`${JSON.stringify(body)}: engine ${engine}, schema ${schema}`);
      }
      expect(disagreements).toEqual([]);
    });

    it(`${kind.name}: each named field set to each JSON type gets one verdict from both`, async () => {
      const disagreements: string[] = [];
      const used = new Set<string>();
      for (const key of schemaKeys(kind.schema)) {
        for (const probe of PROBES) {
          const body = { ...kind.base, [key]: probe };
          const engine = await engineAccepts(h, kind, body);
          const schema = kind.schema.safeParse(body).success;
          const label = `${key} ${JSON.stringify(probe)}`;
          if (engine === schema) continue;
          if (schema && kind.engineOnly?.[label]) used.add(label);
          else disagreements.push(`${label}: engine ${engine}, schema ${schema}`);
        }
      }
      expect(disagreements).toEqual([]);
      // An exception that no longer happens leaves the list, so the list cannot hide new drift.
      expect(Object.keys(kind.engineOnly ?? {}).filter((label) => !used.has(label))).toEqual([]);
    });
  }

  it('dead-letter retry: the schema takes no field; the engine refuses an override as unsupported', async () => {
    const job = await deadLetter(h, queueName('dlq'));
    expect(DeadLetterRetryBody.safeParse({}).success).toBe(true);
    await expect(h.engine.retryDeadLetter(job.id, { override: { queue: 'elsewhere' } })).rejects.toMatchObject({ code: 'unsupported' });
    expect((await h.engine.retryDeadLetter(job.id, {})).job.state).toBe('available');
  });

  it('cron patch: `enabled` must be a boolean for both', async () => {
    const { cron } = await h.engine.registerCron(cronBase());
    for (const [body, expected] of [
      [{ enabled: false }, true],
      [{ enabled: 'no' }, false],
      [{}, false],
    ] as const) {
      expect(CronPatchBody.safeParse(body).success, JSON.stringify(body)).toBe(expected);
      expect(
        await engineAccepts(
          h,
          { name: 'cron patch', schema: CronPatchBody, run: (hh, b) => hh.engine.updateCron(cron.name, b), base: {}, valid: [], invalid: [] },
          body,
        ),
      ).toBe(expected);
    }
  });
});
