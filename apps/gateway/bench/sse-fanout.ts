/**
 * What SSE subscribers cost the gateway: enqueue throughput (batches of 100 over HTTP, 4 concurrent
 * producers, memory backend) with 0 subscribers and with N connected to `GET /ojs/v1/events/stream`. The
 * subscribers run in a child process that only counts the events it reads, so the figures are the server's
 * cost of fanning events out. Prints jobs/s per subscriber count and the events each subscriber received.
 *
 * Run: pnpm --filter @ojskit/gateway exec tsx bench/sse-fanout.ts
 * Options (env): BENCH_JOBS (default 20000), BENCH_SUBSCRIBERS (default "0,100"), BENCH_ROUNDS (default 3),
 * BENCH_TYPES (default job.enqueued; a type no job emits measures the filtering alone).
 */
import { spawn } from 'node:child_process';
import { Agent, request } from 'node:http';
import { MemoryDriver } from '@ojskit/memory';
import { createGateway, startGateway } from '../src/index.js';

const JOBS = Number(process.env['BENCH_JOBS'] ?? 20_000);
const COUNTS = (process.env['BENCH_SUBSCRIBERS'] ?? '0,100').split(',').map(Number);
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 3);
/** Event types the subscribers ask for (`job.enqueued`: every job's event reaches every subscriber). */
const TYPES = process.env['BENCH_TYPES'] ?? 'job.enqueued';
const PRODUCERS = 4;
const BATCH = 100;

/** The subscriber process: opens N streams, says `ready` once every one has read its opening comment. */
const SUBSCRIBERS = `
const http = require('node:http');
const [url, n] = [process.argv[1], Number(process.argv[2])];
let ready = 0; const counts = new Array(n).fill(0); const carry = new Array(n).fill('');
for (let i = 0; i < n; i++) {
  http.get(url + '/ojs/v1/events/stream?types=' + process.argv[3], (res) => {
    let tail = '';
    res.setEncoding('utf8');
    res.on('data', (chunk) => {
      if (tail !== null && (tail += chunk).includes(': connected')) { tail = null; if (++ready === n) process.stdout.write('ready\\n'); }
      const text = carry[i] + chunk; let at = 0; while ((at = text.indexOf('\\nid: ', at)) !== -1) { counts[i]++; at += 5; }
      carry[i] = text.slice(-5);
    });
  });
}
process.stdin.on('data', () => process.stdout.write(JSON.stringify({ min: Math.min(...counts), max: Math.max(...counts) }) + '\\n'));
`;

async function main(): Promise<void> {
  const gateway = createGateway({ backend: new MemoryDriver(), logger: false });
  const server = await startGateway(gateway, { port: 0, host: '127.0.0.1' });
  const agent = new Agent({ keepAlive: true, maxSockets: PRODUCERS });
  const post = (body: string): Promise<number> =>
    new Promise((resolve, reject) => {
      const req = request(
        `${server.url}/ojs/v1/jobs/batch`,
        { method: 'POST', agent, headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) } },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  const body = JSON.stringify({ jobs: Array.from({ length: BATCH }, (_, i) => ({ type: 'bench.fanout', args: [i], options: { queue: 'fanout' } })) });

  const rows: Array<{ subscribers: number; jobsPerSecond: number[]; cpuUsPerJob: number[]; received?: string }> = [];
  for (const n of COUNTS) {
    const child = n > 0 ? spawn(process.execPath, ['-e', SUBSCRIBERS, server.url, String(n), TYPES], { stdio: ['pipe', 'pipe', 'inherit'] }) : undefined;
    const lines: string[] = [];
    let onLine: (() => void) | undefined;
    child?.stdout!.setEncoding('utf8').on('data', (d: string) => {
      lines.push(...d.split('\n').filter(Boolean));
      onLine?.();
    });
    const nextLine = (): Promise<string> =>
      new Promise((resolve) => {
        const check = (): void => {
          if (lines.length > 0) resolve(lines.shift()!);
          else onLine = check;
        };
        check();
      });
    if (child) await nextLine();
    const row = { subscribers: n, jobsPerSecond: [] as number[], cpuUsPerJob: [] as number[] } as (typeof rows)[number];
    for (let round = 0; round < ROUNDS; round++) {
      let sent = 0;
      const started = performance.now();
      const cpu = process.cpuUsage();
      await Promise.all(
        Array.from({ length: PRODUCERS }, async () => {
          while (sent < JOBS) {
            sent += BATCH;
            const status = await post(body);
            if (status !== 201) throw new Error(`enqueue answered ${status}`);
          }
        }),
      );
      row.jobsPerSecond.push(Math.round(sent / ((performance.now() - started) / 1000)));
      // This process's CPU per job (the gateway's and the producers' alike): on a machine shared with other
      // work, wall-clock throughput says as much about the neighbours as about the gateway.
      const used = process.cpuUsage(cpu);
      row.cpuUsPerJob.push(Math.round(((used.user + used.system) / sent) * 10) / 10);
    }
    if (child) {
      // Let the last events reach the subscribers before asking what they read.
      await new Promise((r) => setTimeout(r, 1_000));
      child.stdin!.write('?\n');
      row.received = await nextLine();
      child.kill();
    }
    rows.push(row);
  }
  console.log(`SSE fan-out: enqueue of ${JOBS} jobs per round (batches of ${BATCH}, ${PRODUCERS} producers), ${ROUNDS} rounds, memory backend`);
  const base = Math.max(...rows[0]!.jobsPerSecond);
  const baseCpu = Math.min(...rows[0]!.cpuUsPerJob);
  for (const row of rows) {
    const best = Math.max(...row.jobsPerSecond);
    const cpu = Math.min(...row.cpuUsPerJob);
    console.log(
      `  ${String(row.subscribers).padStart(4)} subscribers: ${row.jobsPerSecond.map((v) => String(v).padStart(7)).join(' ')} jobs/s (best ${best}, ${Math.round((best / base) * 100)}% of ${rows[0]!.subscribers} subscribers); ` +
        `CPU ${row.cpuUsPerJob.join(' ')} µs/job (best ${cpu}: throughput a CPU-bound gateway keeps ${Math.round((baseCpu / cpu) * 100)}%)` +
        (row.received ? `; events per subscriber ${row.received}` : ''),
    );
  }
  agent.destroy();
  await server.shutdown();
}

await main();
