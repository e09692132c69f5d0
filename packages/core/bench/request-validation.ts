/**
 * Micro-benchmark behind the choice of validator on the hot path: the hand-written parsers (what the engine
 * runs) against zod's `safeParse` of the same request schemas, on typical enqueue, FETCH and ACK bodies.
 * Prints CPU microseconds per call (process CPU time, so other load on the machine matters less than wall time)
 * and the zod/parser ratio of the same run. Not a test: nothing asserts a speed. The parser does more than zod
 * (it also builds the job, resolves times and the retry policy, and checks depth, NUL and size), so a row where
 * zod looks faster compares unequal work; zod could only be added in front of the parser, never replace it.
 *
 * Run: `npx tsx --conditions=@ojskit/source bench/request-validation.ts` (from packages/core).
 */
import { AckRequestSchema, EnqueueRequestSchema, FetchRequestSchema, parseAckRequest, parseEnqueue, parseFetchRequest } from '../src/entries/schemas.js';

const ID = '019b0000-0000-7000-8000-000000000001';
const NOW = Date.UTC(2026, 0, 15);
const ROUNDS = 200_000;

interface Case {
  name: string;
  body: unknown;
  parser(body: unknown): unknown;
  schema(body: unknown): unknown;
}

const CASES: Case[] = [
  {
    name: 'enqueue (common keys)',
    body: { type: 'email.send', args: ['ada@example.com', { n: 1 }], options: { queue: 'mail', priority: 5 } },
    parser: (body) => parseEnqueue(body, NOW),
    schema: (body) => EnqueueRequestSchema.safeParse(body),
  },
  {
    name: 'enqueue (retry, tags, schedule)',
    body: {
      type: 'email.send',
      args: [1],
      options: { queue: 'mail', retry: { max_attempts: 5, initial_interval: 'PT1S' }, tags: ['a'], scheduled_at: '+PT5M' },
    },
    parser: (body) => parseEnqueue(body, NOW),
    schema: (body) => EnqueueRequestSchema.safeParse(body),
  },
  {
    name: 'fetch',
    body: { queues: ['mail'], count: 10, worker_id: 'w1', wait_ms: 500 },
    parser: (body) => parseFetchRequest(body, 1_000),
    schema: (body) => FetchRequestSchema.safeParse(body),
  },
  {
    name: 'ack',
    body: { job_id: ID, worker_id: 'w1', result: { sent: true }, attempt: 1 },
    parser: (body) => parseAckRequest(body),
    schema: (body) => AckRequestSchema.safeParse(body),
  },
];

/** CPU microseconds per call of `run`, after a warm-up. */
function cpuMicrosPerCall(run: () => unknown): number {
  for (let i = 0; i < ROUNDS / 10; i++) run();
  const start = process.cpuUsage();
  for (let i = 0; i < ROUNDS; i++) run();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / ROUNDS;
}

console.log(`${'body'.padEnd(34)} ${'parser µs'.padStart(10)} ${'zod µs'.padStart(10)} ${'zod/parser'.padStart(11)}`);
for (const c of CASES) {
  const parser = cpuMicrosPerCall(() => c.parser(c.body));
  const schema = cpuMicrosPerCall(() => c.schema(c.body));
  console.log(`${c.name.padEnd(34)} ${parser.toFixed(3).padStart(10)} ${schema.toFixed(3).padStart(10)} ${(schema / parser).toFixed(2).padStart(10)}×`);
}
