/**
 * Core's zod request schemas (what the OpenAPI document and `spec/schemas/` publish) and the parsers that
 * validate every request (`parseEnqueue`, `parseAckRequest`, …) accept and refuse the same bodies: a corpus
 * of valid bodies, invalid ones and the gateway's hostile inputs (deep nesting, NUL, lone surrogates, huge
 * numbers, unknown keys) goes through both. A rule only a parser can check (bytes, depth, characters, time
 * arithmetic) is listed in PARSER_ONLY with the bodies it covers, so the list cannot hide other drift.
 * A sweep then sets every field a schema names (and each enqueue option) to each JSON type and edge value in turn.
 * `null`: a worker's answer (ACK, FAIL, BEAT, progress) takes it as absent; enqueue and FETCH refuse it.
 */
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import {
  AckBatchRequestSchema,
  AckRequestSchema,
  EnqueueOptionsSchema,
  EnqueueRequestSchema,
  FetchRequestSchema,
  HeartbeatRequestSchema,
  MAX_JSON_DEPTH,
  NackRequestSchema,
  ProgressRequestSchema,
  parseAckBatchRequest,
  parseAckRequest,
  parseEnqueue,
  parseFetchRequest,
  parseHeartbeatRequest,
  parseNackRequest,
  parseProgressRequest,
} from '../src/entries/schemas.js';
import { OjsError } from '../src/index.js';

const NOW = Date.UTC(2026, 0, 15, 10, 30, 0, 0);
const ID = '019b0000-0000-7000-8000-000000000001';
const nested = (depth: number): unknown => JSON.parse(`${'['.repeat(depth)}${']'.repeat(depth)}`);
const BAD_STRINGS = ['\ud800', 'a\udc00b', '\u0000', 'x\u0000y'];
const HUGE_NUMBERS = [1e308, -1e308, Number.MAX_SAFE_INTEGER + 2, JSON.parse('1e400') as number];
/** Not request bodies at all: every kind refuses them. */
const NOT_OBJECTS: unknown[] = [null, undefined, 42, 'text', true, [], [{}]];

interface Kind {
  name: string;
  schema: z.ZodType;
  /** A small valid body the field sweep changes one field of. */
  base: Record<string, unknown>;
  parse(body: unknown): unknown;
  valid: unknown[];
  invalid: unknown[];
  /**
   * Bodies only the parser refuses, by a rule a JSON Schema cannot state: no NUL and no lone surrogate in any
   * string or key, nesting at most MAX_JSON_DEPTH, at most MAX_ENVELOPE_BYTES, time text that lands in years
   * 0000-9999. The schema accepts them; a schema that starts refusing one moves it to `invalid`.
   */
  parserOnly: unknown[];
}

const KINDS: Kind[] = [
  {
    name: 'enqueue',
    base: { type: 'a.b', args: [] },
    schema: EnqueueRequestSchema,
    parse: (body) => parseEnqueue(body, NOW),
    valid: [
      { type: 'email.send', args: [] },
      { type: 'email.send', args: ['ada@example.com', { n: 1 }], meta: { trace: 'x' }, queue: 'mail', priority: 5 },
      { type: 'a.b', args: [], id: ID, specversion: '1.0', custom_field: 'kept' },
      { type: 'a.b', args: [], options: { queue: 'q', priority: 'HIGH', timeout_ms: 1000, tags: ['t'] } },
      { type: 'a.b', args: [], options: { retry: { max_attempts: 5, initial_interval: 'PT1S', backoff_coefficient: 2 } } },
      { type: 'a.b', args: [], scheduled_at: '2026-02-01T00:00:00Z', tags: ['x', 'y'], pending: true },
      { type: 'a.b', args: [], options: { scheduled_at: '+PT5M' } },
      { type: 'a.b', args: nested(MAX_JSON_DEPTH - 1) },
      { type: 'a.b', args: ['😀 \ud83d\ude00 עברית \u200b e\u0301'] },
    ],
    invalid: [
      {},
      { args: [] },
      { type: 'a.b' },
      { type: 'Not A Type', args: [] },
      { type: '', args: [] },
      { type: 'a.b', args: 'x' },
      { type: 'a.b', args: {} },
      { type: 42, args: [] },
      { type: 'a.b', args: [], queue: 'Bad Queue!' },
      { type: 'a.b', args: [], queue: 'q'.repeat(1_000) },
      { type: 'a.b', args: [], priority: 101 },
      { type: 'a.b', args: [], priority: 1.5 },
      { type: 'a.b', args: [], id: 'not-a-uuid' },
      { type: 'a.b', args: [], specversion: '2.0' },
      { type: 'a.b', args: [], meta: [] },
      { type: 'a.b', args: [], tags: 'x' },
      { type: 'a.b', args: [], tags: [1] },
      { type: 'a.b', args: [], options: { queue: 1 } },
      { type: 'a.b', args: [], options: { unknown_option: 1 } },
      { type: 'a.b', args: [], options: { priority: 'URGENT' } },
      { type: 'a.b', args: [], options: { timeout_ms: -1 } },
      { type: 'a.b', args: [], options: { retry: { max_attempts: 'x' } } },
      { type: 'a.b', args: [], pending: 'yes' },
      // A producer's request refuses null: a field is a value or absent.
      { type: 'a.b', args: [], queue: null },
      { type: 'a.b', args: [], retry: null },
      { type: 'a.b', args: [], options: { retry: null } },
      { type: 'a.b', args: null },
      ...HUGE_NUMBERS.map((n) => ({ type: 'a.b', args: [], priority: n })),
      ...HUGE_NUMBERS.map((n) => ({ type: 'a.b', args: [], options: { timeout_ms: n } })),
    ],
    parserOnly: [
      { type: 'a.b', args: [nested(MAX_JSON_DEPTH + 1)] },
      { type: 'a.b', args: [], meta: { x: nested(3_000) } },
      ...BAD_STRINGS.flatMap((bad) => [
        { type: 'a.b', args: [bad] },
        { type: 'a.b', args: [], tags: [bad] },
        { type: 'a.b', args: [], custom_field: bad },
        { type: 'a.b', args: [], meta: { [bad]: 1 } },
      ]),
      // Time text: RFC 3339 with an offset or `+<duration>`, landing in years 0000-9999.
      { type: 'a.b', args: [], scheduled_at: '+P300000Y' },
      { type: 'a.b', args: [], expires_at: 'yesterday' },
      // MAX_ENVELOPE_BYTES.
      { type: 'a.b', args: ['x'.repeat(2_000_000)] },
    ],
  },
  {
    name: 'fetch',
    base: { queues: ['q'] },
    schema: FetchRequestSchema,
    parse: (body) => parseFetchRequest(body, 1_000),
    valid: [
      { queues: ['q'] },
      { queues: ['a', 'b'], count: 10, worker_id: 'w', visibility_timeout_ms: 30_000, wait_ms: 500 },
      { queues: ['q'], wait_ms: 60_000 },
      { queues: ['q'], extra: 1 },
    ],
    invalid: [
      {},
      { queues: [] },
      { queues: 'q' },
      { queues: [1] },
      { queues: ['q'], count: 0 },
      { queues: ['q'], count: 1.5 },
      { queues: ['q'], wait_ms: -1 },
      { queues: ['q'], visibility_timeout_ms: 0 },
      { queues: ['q'], worker_id: '' },
      { queues: ['q'], count: null },
      { queues: ['q'], worker_id: null },
      ...HUGE_NUMBERS.map((n) => ({ queues: ['q'], count: n })),
    ],
    parserOnly: BAD_STRINGS.map((bad) => ({ queues: ['q'], worker_id: bad })),
  },
  {
    name: 'ack',
    base: { job_id: ID },
    schema: AckRequestSchema,
    parse: parseAckRequest,
    valid: [
      { job_id: ID },
      { job_id: ID, result: { sent: true }, worker_id: 'w', attempt: 1 },
      { job_id: ID, result: nested(MAX_JSON_DEPTH - 2) },
      // A worker's answer takes null as absent.
      { job_id: ID, worker_id: null, attempt: null, result: null },
    ],
    invalid: [
      {},
      { job_id: 1 },
      { job_id: '' },
      { job_id: null },
      { job_id: ID, attempt: 0 },
      { job_id: ID, worker_id: 7 },
      ...HUGE_NUMBERS.map((n) => ({ job_id: ID, attempt: n })),
    ],
    parserOnly: [{ job_id: ID, result: nested(3_000) }, ...BAD_STRINGS.map((bad) => ({ job_id: ID, worker_id: bad }))],
  },
  {
    name: 'ack batch',
    base: { acks: [{ job_id: ID }] },
    schema: AckBatchRequestSchema,
    parse: parseAckBatchRequest,
    valid: [
      { acks: [{ job_id: ID }] },
      {
        acks: [
          { job_id: ID, result: 1 },
          { job_id: ID, worker_id: 'w' },
        ],
      },
      { acks: [{ job_id: ID, worker_id: null }] },
    ],
    invalid: [{}, { acks: [] }, { acks: {} }, { acks: [{}] }, { acks: null }, { acks: [null] }, { acks: [{ job_id: ID }, { job_id: ID, attempt: 0 }] }],
    parserOnly: [{ acks: [{ job_id: ID, result: nested(3_000) }] }, ...BAD_STRINGS.map((bad) => ({ acks: [{ job_id: ID, worker_id: bad }] }))],
  },
  {
    name: 'nack',
    base: { job_id: ID },
    schema: NackRequestSchema,
    parse: parseNackRequest,
    valid: [
      { job_id: ID },
      { job_id: ID, error: { code: 'E', message: 'boom', retryable: false, details: { a: 1 } }, requeue: true, worker_id: 'w', attempt: 2 },
      { job_id: ID, error: null, worker_id: null, attempt: null },
    ],
    invalid: [
      {},
      { job_id: ID, error: 'boom' },
      { job_id: ID, error: { retryable: 'no' } },
      { job_id: ID, error: { code: 5 } },
      { job_id: ID, error: { details: [] } },
      { job_id: ID, requeue: 'yes' },
      { job_id: ID, requeue: null },
    ],
    parserOnly: [
      { job_id: ID, error: { message: 'x', details: { d: nested(3_000) } } },
      ...BAD_STRINGS.map((bad) => ({ job_id: ID, error: { message: bad } })),
    ],
  },
  {
    name: 'heartbeat',
    base: { worker_id: 'w' },
    schema: HeartbeatRequestSchema,
    parse: parseHeartbeatRequest,
    valid: [
      { worker_id: 'w' },
      { worker_id: 'w', active_jobs: [ID], visibility_timeout_ms: 10_000, hostname: 'h', pid: 1, labels: { a: 'b' } },
      { worker_id: 'w', active_jobs: 3 },
      // What a worker says about itself is kept when well typed and ignored otherwise.
      { worker_id: 'w', hostname: 7, pid: 'x', state: null, concurrency: 1.5, labels: [] },
    ],
    invalid: [
      {},
      { worker_id: 1 },
      { worker_id: '' },
      { worker_id: 'w', active_job_ids: 'x' },
      { worker_id: 'w', active_jobs: -1 },
      { worker_id: 'w', queues: null },
      { worker_id: 'w', visibility_timeout_ms: -5 },
    ],
    parserOnly: [
      { worker_id: 'w', labels: { d: nested(3_000) } },
      ...BAD_STRINGS.flatMap((bad) => [{ worker_id: bad }, { worker_id: 'w', active_job_ids: [bad] }]),
    ],
  },
  {
    name: 'progress',
    base: { message: 'm' },
    schema: ProgressRequestSchema,
    parse: parseProgressRequest,
    valid: [
      { progress: 0.5, message: 'half', data: { step: 2 } },
      { data: { step: 1 }, checkpoint: { cursor: 'c' } },
      { message: 'm' },
      { message: 'm', progress: null, data: null, checkpoint: null },
    ],
    invalid: [
      {},
      { checkpoint: { cursor: 'c' } },
      { progress: 'half' },
      { message: 3 },
      { data: [] },
      { progress: null, message: null, data: null },
      { message: 'm', checkpoint: 'c' },
    ],
    parserOnly: [{ data: { d: nested(3_000) } }, ...BAD_STRINGS.map((bad) => ({ message: bad }))],
  },
];

function parserAccepts(kind: Kind, body: unknown): boolean {
  try {
    kind.parse(body);
    return true;
  } catch (error) {
    // Refusing is an OjsError (400/422), never a crash.
    if (!(error instanceof OjsError)) throw error;
    return false;
  }
}

/** zod's verdict; 'crash' when it throws instead of answering (deep nesting overflows its stack). */
function schemaAccepts(kind: Kind, body: unknown): boolean | 'crash' {
  try {
    return kind.schema.safeParse(body).success;
  } catch {
    return 'crash';
  }
}

function show(body: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(body, (_k, v: unknown) => (typeof v === 'string' && v.length > 40 ? `${v.slice(0, 40)}…(${v.length})` : v)) ?? String(body);
  } catch {
    text = `${String(JSON.stringify(body)).slice(0, 60)}… (deeply nested)`;
  }
  return text.length > 160 ? `${text.slice(0, 160)}…` : text;
}

describe('request schemas and parsers agree', () => {
  for (const kind of KINDS) {
    it(`${kind.name}: every valid body passes both, every invalid body fails both`, () => {
      const disagreements: string[] = [];
      const cases = [
        ...kind.valid.map((body) => [body, true, true] as const),
        ...[...kind.invalid, ...NOT_OBJECTS].map((body) => [body, false, false] as const),
        ...kind.parserOnly.map((body) => [body, false, true] as const),
      ];
      for (const [body, parserExpected, schemaExpected] of cases) {
        const parser = parserAccepts(kind, body);
        const schema = schemaAccepts(kind, body);
        if (parser !== parserExpected || schema !== schemaExpected) disagreements.push(`${show(body)}: parser ${parser}, schema ${schema}`);
      }
      expect(disagreements).toEqual([]);
    });
  }
});

/** Values each field is set to in turn: every JSON type, and the edges (empty, zero, negative, fraction). */
const PROBES: unknown[] = [null, '', 'x', 0, -1, 1, 1.5, true, [], ['x'], [1], {}, { a: 1 }];

/**
 * Field sweep results only the parser refuses, each with its reason: the field's text must parse as time or a
 * duration, or the value is checked against a rule the JSON Schema does not state. Anything else must agree.
 */
const SWEEP_PARSER_ONLY: Record<string, string> = {
  ...Object.fromEntries(
    ['scheduled_at', 'expires_at', 'options.scheduled_at', 'options.delay_until', 'options.expires_at'].flatMap((field) =>
      ['""', '"x"'].map((text) => [`enqueue ${field} ${text}`, 'time text: RFC 3339 with an offset, or +<ISO 8601 duration>']),
    ),
  ),
  ...Object.fromEntries(
    ['visibility_timeout', 'options.visibility_timeout'].flatMap((field) =>
      ['""', '"x"'].map((text) => [`enqueue ${field} ${text}`, 'duration text: ISO 8601']),
    ),
  ),
  'enqueue unique {"a":1}': 'unique policy keys are checked against the known names, with a nearest-name hint',
  'enqueue options.unique {"a":1}': 'unique policy keys are checked against the known names, with a nearest-name hint',
  'enqueue options.rate_limit {}': 'a rate limit needs at least one of max_per_second, concurrency (the schema lists them as optional)',
};

/** The top-level keys a kind's schema names (through a refinement, if any). */
function schemaKeys(schema: z.ZodType): string[] {
  const def = (schema as unknown as { _zod: { def: { shape?: Record<string, unknown>; in?: z.ZodType } } })._zod.def;
  if (def.shape) return Object.keys(def.shape);
  return def.in ? schemaKeys(def.in) : [];
}

describe('request schemas and parsers agree field by field', () => {
  for (const kind of KINDS) {
    it(`${kind.name}: each named field set to each probe value gets the same verdict from both`, () => {
      const disagreements: string[] = [];
      const parserOnlyUsed = new Set<string>();
      const fields = schemaKeys(kind.schema).map((key) => [key, (probe: unknown) => ({ ...kind.base, [key]: probe })] as const);
      // Enqueue options are swept one by one too, inside `options`.
      if (kind.name === 'enqueue')
        for (const key of schemaKeys(EnqueueOptionsSchema)) fields.push([`options.${key}`, (probe) => ({ ...kind.base, options: { [key]: probe } })]);
      for (const [key, withProbe] of fields) {
        for (const probe of PROBES) {
          const body = withProbe(probe);
          const parser = parserAccepts(kind, body);
          const schema = schemaAccepts(kind, body);
          if (parser === schema) continue;
          const label = `${kind.name} ${key} ${JSON.stringify(probe)}`;
          if (!parser && schema === true && label in SWEEP_PARSER_ONLY) parserOnlyUsed.add(label);
          else disagreements.push(`${label}: parser ${parser}, schema ${schema}`);
        }
      }
      expect(disagreements).toEqual([]);
      // An exception that no longer happens is dropped from the list, so the list cannot hide new drift.
      const stale = Object.keys(SWEEP_PARSER_ONLY).filter((label) => label.startsWith(`${kind.name} `) && !parserOnlyUsed.has(label));
      expect(stale).toEqual([]);
    });
  }
});
