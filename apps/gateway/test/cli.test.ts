/**
 * The built CLI as a real child process, driven over the network: start-up, flags and environment, auth,
 * a full job round trip through the HTTP transport, graceful shutdown on SIGTERM with a request in flight,
 * and two gateway processes sharing one Redis or one Postgres.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { http } from '@ojskit/client';
import { describeEachBackend, POSTGRES, REDIS } from './support/backends.js';
import { events, FrameReader } from './support/sse.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const cli = fileURLToPath(new URL('../dist/cli.js', import.meta.url));

interface Started {
  child: ChildProcess;
  url: string;
  stdout: string[];
  stderr: string[];
}

const children: ChildProcess[] = [];

function start(args: string[], env: Record<string, string> = {}, command: [string, string[]] = [process.execPath, [cli, ...args]]): Promise<Started> {
  const child = spawn(command[0], command[1], { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  const stdout: string[] = [];
  const stderr: string[] = [];
  child.stderr!.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
  return new Promise((resolve, reject) => {
    let buffered = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop()!;
      for (const line of lines) {
        stdout.push(line);
        const parsed = JSON.parse(line) as { msg: string; url?: string };
        if (parsed.msg === 'listening') resolve({ child, url: parsed.url!, stdout, stderr });
      }
    });
    child.once('exit', (code) => reject(new Error(`exited with ${code} before listening: ${stderr.join('')}`)));
  });
}

/** A port nothing listens on right now. */
async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

beforeAll(() => {
  // The test runs the built CLI. Under `pnpm test` (OJSKIT_BUILT, set by scripts/test/run.mjs) or as a turbo task
  // (TURBO_HASH) it runs after the builds of the gateway and of the packages it imports; run on its own, it
  // builds them from the current sources.
  if (process.env['OJSKIT_BUILT'] || process.env['TURBO_HASH']) return;
  const packages = ['core', 'memory', 'redis', 'postgres', 'gateway'].flatMap((name) => ['--filter', `@ojskit/${name}`]);
  execFileSync('pnpm', [...packages, 'run', 'build'], {
    cwd: root,
    stdio: 'pipe',
  });
}, 300_000);

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

describe('ojskit-gateway CLI', () => {
  it('serves the protocol: a job round trip through the HTTP transport, logged one line per request', async () => {
    const { url, stdout } = await start(['--port', '0', '--host', '127.0.0.1', '--backend', 'memory']);
    const api = http(url);
    expect((await api.manifest()).backend).toBe('memory');
    const { job } = await api.enqueue({ type: 'cli.job', args: ['hello'], options: { queue: 'cli' } });
    const { jobs } = await api.fetch({ queues: ['cli'], worker_id: 'cli-worker' });
    expect(jobs.map((j) => j.id)).toEqual([job.id]);
    await api.ack({ job_id: job.id, result: { echoed: 'hello' }, worker_id: 'cli-worker' });
    expect((await api.getJob(job.id)).job).toMatchObject({ state: 'completed', result: { echoed: 'hello' } });
    const requests = stdout.map((line) => JSON.parse(line)).filter((line) => line.msg === 'request');
    expect(requests.map((line) => `${line.method} ${line.path} ${line.status}`)).toEqual([
      'GET /ojs/manifest 200',
      'POST /ojs/v1/jobs 201',
      'POST /ojs/v1/workers/fetch 200',
      'POST /ojs/v1/workers/ack 200',
      `GET /ojs/v1/jobs/${job.id} 200`,
    ]);
  });

  it("the package's start script takes the port from OJSKIT_PORT, else PORT, and prints a clickable URL", async () => {
    const script = (JSON.parse(readFileSync(`${root}/package.json`, 'utf8')) as { scripts: { start: string } }).scripts.start;
    const viaScript = (env: Record<string, string>) => start([], { OJSKIT_HOST: '127.0.0.1', OJSKIT_QUIET: '1', ...env }, ['sh', ['-c', script]]);
    const cases: Array<Record<string, string>> = [{ OJSKIT_PORT: String(await freePort()), PORT: '1' }, { PORT: String(await freePort()) }];
    for (const env of cases) {
      const port = env['OJSKIT_PORT'] ?? env['PORT'];
      const { url, child, stderr } = await viaScript(env);
      expect(url).toBe(`http://127.0.0.1:${port}`);
      expect((await fetch(`${url}/ojs/manifest`)).status).toBe(200);
      expect(stderr.join('')).toContain(`ready at http://127.0.0.1:${port}/ (memory backend`);
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
  });

  it('takes its settings from the environment (flags win): auth, quiet, body limit', async () => {
    const { url, stdout } = await start(['--port', '0', '--host', '127.0.0.1', '--quiet'], {
      OJSKIT_API_KEY: 'env-key',
      OJSKIT_BODY_LIMIT: '2kb',
      OJSKIT_PORT: '1',
    });
    const anonymous = await fetch(`${url}/ojs/v1/queues`);
    expect(anonymous.status).toBe(401);
    expect((await fetch(`${url}/ojs/manifest`)).status).toBe(200);
    const api = http(url, { apiKey: 'env-key' });
    expect((await api.listQueues()).queues).toBeDefined();
    const big = await fetch(`${url}/ojs/v1/jobs`, {
      method: 'POST',
      headers: { Authorization: 'Bearer env-key', 'Content-Type': 'application/json' },
      body: JSON.stringify({ type: 'a.b', args: ['x'.repeat(4096)] }),
    });
    expect(big.status).toBe(413);
    expect(stdout.filter((line) => line.includes('"msg":"request"'))).toEqual([]);
  });

  it('shuts down gracefully on SIGTERM: the in-flight request completes, no new work, exit code 0', async () => {
    const { child, url, stdout } = await start(['--port', '0', '--host', '127.0.0.1', '--quiet']);
    const api = http(url);
    await api.enqueue({ type: 'a.b', args: [], options: { queue: 'other' } });
    // A long-poll FETCH on an empty queue is in flight when the signal arrives.
    const inFlight = api.fetch({ queues: ['empty'], wait_ms: 1_500 });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    await expect(inFlight).resolves.toEqual({ jobs: [] });
    const [code] = await exited;
    expect(code).toBe(0);
    const messages = stdout.map((line) => JSON.parse(line).msg);
    expect(messages).toContain('shutting down');
    expect(messages.at(-1)).toBe('stopped');
    await expect(api.manifest()).rejects.toMatchObject({ code: 'backend_unavailable' });
  });

  it('rejects bad flags with usage (exit 2), an unknown backend and a kafka:// URL without its store (exit 1)', async () => {
    const bad = spawn(process.execPath, [cli, '--port', 'eighty'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    bad.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    expect((await once(bad, 'exit'))[0]).toBe(2);
    expect(err).toContain("Invalid port 'eighty'");
    expect(err).toContain('Usage: ojskit-gateway');

    const unknown = spawn(process.execPath, [cli, '--backend', 'nats://x', '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let unknownErr = '';
    unknown.stderr.on('data', (chunk: Buffer) => (unknownErr += chunk.toString()));
    expect((await once(unknown, 'exit'))[0]).toBe(1);
    expect(unknownErr).toContain("Unknown backend 'nats://x'");

    const kafka = spawn(process.execPath, [cli, '--backend', 'kafka://localhost:9092', '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let kafkaErr = '';
    kafka.stderr.on('data', (chunk: Buffer) => (kafkaErr += chunk.toString()));
    expect((await once(kafka, 'exit'))[0]).toBe(1);
    // @ojskit/kafka is installed with the gateway: a kafka:// URL without its store is refused in one line
    expect(kafkaErr).toContain("'kafka://localhost:9092' names no store: add ?store=redis://… or ?store=postgres://…");
  });

  it('exits with one clear line when the Redis or PostgreSQL it is given does not answer', async () => {
    const closed = await freePort();
    for (const [backend, line] of [
      [
        `redis://127.0.0.1:${closed}`,
        `ojskit-gateway: Redis at 127.0.0.1:${closed} is unreachable (connect ECONNREFUSED 127.0.0.1:${closed}). Is redis-server running there, and is the URL right?`,
      ],
      [`postgres://postgres@127.0.0.1:${closed}/test`, `ojskit-gateway: connect ECONNREFUSED 127.0.0.1:${closed}`],
    ]) {
      const child = spawn(process.execPath, [cli, '--port', '0', '--backend', backend!], { stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
      expect((await once(child, 'exit'))[0]).toBe(1);
      expect(out.trim()).toBe(line);
    }
  });

  it('says which port is taken and how to choose another (EADDRINUSE)', async () => {
    const first = await start(['--port', '0', '--host', '127.0.0.1', '--quiet']);
    const port = new URL(first.url).port;
    const second = spawn(process.execPath, [cli, '--port', port, '--host', '127.0.0.1'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    second.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    expect((await once(second, 'exit'))[0]).toBe(1);
    expect(err.trim()).toBe(
      `ojskit-gateway: port ${port} on 127.0.0.1 is already in use (another gateway still running?). Stop that process, or choose another port: --port N, OJSKIT_PORT=N or PORT=N (0 picks a free one).`,
    );
  });
});

describeEachBackend(
  'two gateway processes on one store',
  (backend) => {
    it('never hand one job out twice, complete every job, and both SSE streams show every transition', async () => {
      const store = backend.url();
      const [a, b] = await Promise.all([0, 1].map(() => start(['--port', '0', '--host', '127.0.0.1', '--quiet', '--backend', store])));
      const queue = `multi-${process.pid}`;
      const streams = await Promise.all(
        [a!, b!].map(async ({ url }) => {
          const res = await fetch(`${url}/ojs/v1/events/stream?queues=${queue}`, { headers: { Accept: 'text/event-stream' } });
          const reader = new FrameReader(res.body!);
          await reader.until((frames) => frames.some((f) => f.comment === 'connected'));
          return reader;
        }),
      );

      const total = 40;
      const { jobs } = await http(a!.url).enqueueBatch({
        jobs: Array.from({ length: total }, (_, i) => ({ type: 'multi.job', args: [i], options: { queue } })),
      });
      // Four workers, two per gateway, fetch and ACK concurrently until the queue is empty.
      const work = async (url: string, worker: string): Promise<string[]> => {
        const api = http(url);
        const handed: string[] = [];
        for (;;) {
          const batch = await api.fetch({ queues: [queue], count: 3, worker_id: worker });
          if (batch.jobs.length === 0) return handed;
          for (const job of batch.jobs) {
            handed.push(job.id);
            await api.ack({ job_id: job.id, worker_id: worker, result: { by: worker } });
          }
        }
      };
      const handed = await Promise.all([work(a!.url, 'a1'), work(b!.url, 'b1'), work(a!.url, 'a2'), work(b!.url, 'b2')]);
      const all = handed.flat();
      expect(all).toHaveLength(total);
      expect(new Set(all)).toEqual(new Set(jobs.map((j) => j.id)));
      expect(handed[0]!.length + handed[2]!.length, 'gateway A handed out work').toBeGreaterThan(0);
      expect(handed[1]!.length + handed[3]!.length, 'gateway B handed out work').toBeGreaterThan(0);
      const stored = await Promise.all(jobs.map((j) => http(b!.url).getJob(j.id)));
      expect(stored.map(({ job }) => job.state)).toEqual(jobs.map(() => 'completed'));

      // Each gateway's stream shows every job's transitions, whichever process made them, in order, once.
      const expected = ['job.enqueued', 'job.started', 'job.completed'];
      for (const [name, reader] of [
        ['A', streams[0]!],
        ['B', streams[1]!],
      ] as const) {
        const seen = events(await reader.until((frames) => events(frames).length >= expected.length * total, 15_000));
        const byJob = new Map<string, string[]>();
        for (const event of seen) byJob.set(event.data.data.job_id, [...(byJob.get(event.data.data.job_id) ?? []), event.event]);
        for (const job of jobs) expect(byJob.get(job.id), `stream of gateway ${name}, job ${job.id}`).toEqual(expected);
        expect(seen, `stream of gateway ${name}`).toHaveLength(expected.length * total);
        await reader.cancel();
      }
    }, 60_000);
  },
  [REDIS, POSTGRES],
);
