/**
 * HTTP throughput of the gateway over the memory backend: enqueue (single and batch), fetch+ack with batch
 * sizes 1/10/100 (ACKs of 10/100 through `POST /ojs/v1/workers/ack/batch`), and a producer/consumer pipeline.
 * Prints jobs/s and request latency p50/p99. The gateway runs as the built CLI in its own process (request
 * logging off), so client and server do not share an event loop.
 *
 * Run: pnpm --filter @ojskit/gateway bench   (builds first under turbo; or `pnpm build` then `tsx bench/http.ts`)
 * Options (env): BENCH_JOBS (default 20000), BENCH_CONCURRENCY (default 16).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { Agent, request } from 'node:http';
import { fileURLToPath } from 'node:url';

const JOBS = Number(process.env['BENCH_JOBS'] ?? 20_000);
const CONCURRENCY = Number(process.env['BENCH_CONCURRENCY'] ?? 16);
/** Producer lanes of the end-to-end scenario (consumers use CONCURRENCY). */
const PRODUCERS = 4;
const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY * 2 });

interface Reply {
  status: number;
  body: any;
}

let base = { host: '127.0.0.1', port: 0 };

/** One JSON request over a keep-alive socket (node:http: less per-request overhead than fetch). */
function call(method: string, path: string, body?: unknown): Promise<Reply> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        ...base,
        agent,
        method,
        path,
        headers: payload === undefined ? {} : { 'Content-Type': 'application/openjobspec+json', 'Content-Length': Buffer.byteLength(payload) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString();
          resolve({ status: res.statusCode ?? 0, body: text.length > 0 ? JSON.parse(text) : undefined });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** Latency samples (ms) of one request kind. */
class Latency {
  readonly samples: number[] = [];
  async time<T>(fn: () => Promise<T>): Promise<T> {
    const started = performance.now();
    const result = await fn();
    this.samples.push(performance.now() - started);
    return result;
  }
  percentile(p: number): number {
    const sorted = [...this.samples].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
  }
  summary(): string {
    return `p50 ${this.percentile(50).toFixed(2)} ms, p99 ${this.percentile(99).toFixed(2)} ms (${this.samples.length} requests)`;
  }
}

let queueCounter = 0;
const freshQueue = (): string => `bench-${process.pid}-${++queueCounter}`;

function expectStatus(reply: Reply, status: number, what: string): void {
  if (reply.status !== status) throw new Error(`${what}: HTTP ${reply.status} ${JSON.stringify(reply.body).slice(0, 300)}`);
}

/** Runs `worker` on `CONCURRENCY` lanes until it returns false. */
async function lanes(worker: () => Promise<boolean>): Promise<void> {
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (await worker());
    }),
  );
}

async function seed(queue: string, count: number): Promise<void> {
  for (let done = 0; done < count;) {
    const size = Math.min(1000, count - done);
    const reply = await call('POST', '/ojs/v1/jobs/batch', {
      jobs: Array.from({ length: size }, (_, i) => ({ type: 'bench.job', args: [done + i], options: { queue } })),
    });
    expectStatus(reply, 201, 'seed');
    done += size;
  }
}

function report(name: string, jobs: number, ms: number, latencies: Record<string, Latency>): void {
  const rate = Math.round((jobs / ms) * 1000);
  console.log(`${name.padEnd(34)} ${String(rate).padStart(8)} jobs/s  (${jobs} jobs in ${(ms / 1000).toFixed(2)} s)`);
  for (const [kind, latency] of Object.entries(latencies)) console.log(`${''.padEnd(36)}${kind.padEnd(12)} ${latency.summary()}`);
}

async function enqueueSingle(): Promise<void> {
  const queue = freshQueue();
  const latency = new Latency();
  let issued = 0;
  const started = performance.now();
  await lanes(async () => {
    if (issued >= JOBS) return false;
    const i = issued++;
    expectStatus(await latency.time(() => call('POST', '/ojs/v1/jobs', { type: 'bench.job', args: [i], options: { queue } })), 201, 'enqueue');
    return true;
  });
  report('enqueue, single (POST /jobs)', JOBS, performance.now() - started, { 'POST /jobs': latency });
}

async function enqueueBatch(size: number): Promise<void> {
  const queue = freshQueue();
  const latency = new Latency();
  let issued = 0;
  const started = performance.now();
  await lanes(async () => {
    if (issued >= JOBS) return false;
    const from = issued;
    const n = Math.min(size, JOBS - from);
    issued += n;
    const jobs = Array.from({ length: n }, (_, i) => ({ type: 'bench.job', args: [from + i], options: { queue } }));
    expectStatus(await latency.time(() => call('POST', '/ojs/v1/jobs/batch', { jobs })), 201, 'batch');
    return true;
  });
  report(`enqueue, batch of ${size}`, JOBS, performance.now() - started, { 'POST batch': latency });
}

/** FETCH `batch` jobs, ACK them (one by one for 1, batched for more), until `total` are done. */
async function consume(queue: string, total: number, batch: number, fetchLatency: Latency, ackLatency: Latency, stillProducing: () => boolean): Promise<void> {
  let acked = 0;
  await lanes(async () => {
    if (acked >= total) return false;
    const reply = await fetchLatency.time(() => call('POST', '/ojs/v1/workers/fetch', { queues: [queue], count: batch, worker_id: 'bench' }));
    expectStatus(reply, 200, 'fetch');
    const jobs = reply.body.jobs as Array<{ id: string }>;
    if (jobs.length === 0) {
      if (!stillProducing() && acked >= total) return false;
      await new Promise((resolve) => setTimeout(resolve, 1));
      return true;
    }
    if (batch === 1) {
      expectStatus(await ackLatency.time(() => call('POST', '/ojs/v1/workers/ack', { job_id: jobs[0]!.id, worker_id: 'bench' })), 200, 'ack');
    } else {
      const acks = jobs.map((job) => ({ job_id: job.id, worker_id: 'bench' }));
      const result = await ackLatency.time(() => call('POST', '/ojs/v1/workers/ack/batch', { acks }));
      expectStatus(result, 200, 'ack batch');
      const failed = (result.body.results as Array<{ ok: boolean }>).filter((r) => !r.ok).length;
      if (failed > 0) throw new Error(`${failed} batched ACKs failed`);
    }
    acked += jobs.length;
    return true;
  });
}

async function fetchAck(batch: number): Promise<void> {
  const queue = freshQueue();
  await seed(queue, JOBS);
  const fetchLatency = new Latency();
  const ackLatency = new Latency();
  const started = performance.now();
  await consume(queue, JOBS, batch, fetchLatency, ackLatency, () => false);
  report(`fetch+ack, batch ${batch}${batch > 1 ? ' (ack/batch)' : ''}`, JOBS, performance.now() - started, {
    FETCH: fetchLatency,
    [batch === 1 ? 'ACK' : 'ACK batch']: ackLatency,
  });
}

/** End to end: 4 producers enqueue batches of 100 while consumers fetch and batch-ACK 100 at a time. */
async function pipeline(): Promise<void> {
  const queue = freshQueue();
  const enqueueLatency = new Latency();
  const fetchLatency = new Latency();
  const ackLatency = new Latency();
  let issued = 0;
  let producing = true;
  const started = performance.now();
  const producers = Promise.all(
    Array.from({ length: PRODUCERS }, async () => {
      while (issued < JOBS) {
        const from = issued;
        const n = Math.min(100, JOBS - from);
        issued += n;
        const jobs = Array.from({ length: n }, (_, i) => ({ type: 'bench.job', args: [from + i], options: { queue } }));
        expectStatus(await enqueueLatency.time(() => call('POST', '/ojs/v1/jobs/batch', { jobs })), 201, 'pipeline enqueue');
      }
    }),
  ).then(() => {
    producing = false;
  });
  await Promise.all([producers, consume(queue, JOBS, 100, fetchLatency, ackLatency, () => producing)]);
  report('end to end: enqueue/fetch/ack by 100', JOBS, performance.now() - started, {
    'POST batch': enqueueLatency,
    FETCH: fetchLatency,
    'ACK batch': ackLatency,
  });
}

async function startServer(): Promise<ChildProcess> {
  const cli = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
  const child = spawn(process.execPath, [cli, '--port', '0', '--host', '127.0.0.1', '--quiet', '--backend', 'memory'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      for (const line of chunk.toString().split('\n')) {
        if (!line.includes('"listening"')) continue;
        const { port } = JSON.parse(line) as { port: number };
        base = { host: '127.0.0.1', port };
        resolve();
      }
    });
    child.once('exit', (code) => reject(new Error(`gateway exited with ${code}`)));
  });
  return child;
}

async function main(): Promise<void> {
  const server = await startServer();
  try {
    console.log(`ojskit gateway HTTP benchmark: memory backend, ${JOBS} jobs per scenario, ${CONCURRENCY} concurrent requests, Node ${process.version}`);
    // Warm-up: JIT and socket pool.
    await seed(freshQueue(), 2_000);
    await enqueueSingle();
    await enqueueBatch(100);
    await enqueueBatch(1000);
    await fetchAck(1);
    await fetchAck(10);
    await fetchAck(100);
    await pipeline();
  } finally {
    server.kill('SIGTERM');
    agent.destroy();
  }
}

await main();
