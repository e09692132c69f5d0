/**
 * Faults: a worker process killed mid-job, two engine processes on one schema, and a PostgreSQL server
 * restarted and crashed under load (on a private cluster, so the shared test database is never touched).
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Engine, isOjsError, type OjsError, type OjsEvent } from '@ojskit/core';
import { ManualClock } from '@ojskit/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createPostgresDriver } from '../src/factory.js';
import type { PostgresDriver } from '../src/postgres-driver.js';
import { DATABASE_URL, HAVE_PG, openTestDatabase, type TestDatabase } from './support/database.js';
import { PrivatePostgres, privatePostgresUnavailable } from './support/private-postgres.js';
import { waitFor } from './support/wait.js';

const fixture = (name: string): string => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));

/**
 * Runs a fixture with the workspace's TypeScript sources. `line` resolves its first stdout line, `nextLine`
 * each one after; `send` writes a line to its stdin.
 */
function runFixture(
  name: string,
  args: string[],
): { line: Promise<string>; nextLine: () => Promise<string>; send: (line: string) => void; kill: () => Promise<void>; exited: Promise<number | null> } {
  const child = spawn(process.execPath, ['--conditions=@ojskit/source', '--import', 'tsx', fixture(name), ...args], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const nextLine = async (): Promise<string> => {
    const next = await Promise.race([lines.next(), exited.then((code) => ({ done: true as const, value: code }))]);
    if (next.done) throw new Error(`${name} exited (${String(next.value)}) before printing`);
    return next.value;
  };
  return {
    line: nextLine(),
    nextLine,
    send: (line) => child.stdin!.write(`${line}\n`),
    exited,
    kill: async () => {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

describe.runIf(HAVE_PG)('faults on the shared database', () => {
  let db: TestDatabase;
  afterEach(async () => {
    await db?.drop();
  });

  it("gives a killed worker's job back after its visibility deadline, attempt counted", async () => {
    db = await openTestDatabase({ events: false });
    const clock = new ManualClock(Date.now());
    const engine = new Engine({ driver: db.driver, clock });
    const { job } = await engine.enqueue({ type: 'test.crash', queue: 'crash', args: [] });

    const worker = runFixture('claim-and-die.ts', [DATABASE_URL, db.schema, 'crash', '1000']);
    expect(JSON.parse(await worker.line)).toEqual({ id: job.id, attempt: 1 });
    await worker.kill();

    expect((await engine.getJob(job.id)).job).toMatchObject({ state: 'active', attempt: 1 });
    clock.set(Date.now() + 1_500); // past the 1 s reservation the worker took on the wall clock
    await engine.runMaintenance();
    const back = (await engine.getJob(job.id)).job;
    expect(back).toMatchObject({ state: 'available', attempt: 1 });
    const again = await engine.fetch({ queues: ['crash'], worker_id: 'survivor' });
    expect(again.jobs[0]).toMatchObject({ id: job.id, attempt: 2, worker_id: 'survivor' });
    await engine.stop();
  });

  it('never hands one job to two engine processes sharing the schema', async () => {
    db = await openTestDatabase({ events: false });
    const engine = new Engine({ driver: db.driver, clock: new ManualClock(Date.now()) });
    const total = 600;
    const { jobs } = await engine.enqueueBatch({ jobs: Array.from({ length: total }, (_, i) => ({ type: 'test.split', queue: 'split', args: [i] })) });
    const workers = [0, 1, 2].map(() => runFixture('worker-loop.ts', [DATABASE_URL, db.schema, 'split']));
    // Start them together: a process that starts a second late on a loaded machine would otherwise find the
    // queue already drained by the others, and the test would not show sharing.
    expect(await Promise.all(workers.map((w) => w.line))).toEqual(['ready', 'ready', 'ready']);
    for (const w of workers) w.send('go');
    const claimed = await Promise.all(workers.map(async (w) => JSON.parse(await w.nextLine()) as string[]));
    await Promise.all(workers.map((w) => w.exited));
    const all = claimed.flat();
    expect(all).toHaveLength(total);
    expect(new Set(all).size).toBe(total);
    expect(new Set(all)).toEqual(new Set(jobs.map((j) => j.id)));
    expect(claimed.filter((ids) => ids.length > 0).length).toBeGreaterThan(1); // the work was really shared
    expect(await db.driver.jobCounts({ queue: 'split' })).toMatchObject({ completed: total, active: 0, available: 0 });
    await engine.stop();
  }, 60_000);
});

describe.skipIf(!HAVE_PG || privatePostgresUnavailable !== undefined)(
  `server restart and crash (private cluster${privatePostgresUnavailable ? `: unavailable, ${privatePostgresUnavailable}` : ''})`,
  () => {
    let cluster: PrivatePostgres | undefined;
    let driver: PostgresDriver | undefined;
    let peer: PostgresDriver | undefined;
    afterEach(async () => {
      await driver?.close().catch(() => {});
      await peer?.close().catch(() => {});
      await cluster?.destroy();
    });

    for (const mode of ['fast', 'immediate'] as const) {
      it(`${mode === 'fast' ? 'a restart' : 'a crash (immediate stop)'} mid-run: clear errors, reconnection, no committed job lost`, async () => {
        if (process.env['CI'] === 'true' && privatePostgresUnavailable) throw new Error(privatePostgresUnavailable);
        cluster = await PrivatePostgres.start();
        const errors: Error[] = [];
        driver = await createPostgresDriver(cluster.url, { onError: (e) => errors.push(e) });
        peer = await createPostgresDriver(cluster.url, { onError: (e) => errors.push(e) });
        const engine = new Engine({ driver });
        const heard: OjsEvent[] = [];
        peer.events!.subscribe((events) => heard.push(...events));

        const committed = new Set<string>();
        const completed = new Set<string>();
        const failures: OjsError[] = [];
        let stop = false;
        const record = (error: unknown): void => {
          if (!isOjsError(error)) throw error;
          failures.push(error);
        };
        const producer = (async () => {
          for (let i = 0; !stop; i++) {
            try {
              const { job } = await engine.enqueue({ type: 'test.restart', queue: 'restart', args: [i] });
              committed.add(job.id);
            } catch (error) {
              record(error);
              await new Promise((resolve) => setTimeout(resolve, 20));
            }
          }
        })();
        const consumer = (async () => {
          while (!stop) {
            try {
              const { jobs } = await engine.fetch({ queues: ['restart'], count: 10, worker_id: 'w' });
              if (jobs.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
              else {
                const { results } = await engine.ackMany({ acks: jobs.map((j) => ({ job_id: j.id })) });
                for (const r of results) if (r.ok) completed.add(r.job_id);
              }
            } catch (error) {
              record(error);
              await new Promise((resolve) => setTimeout(resolve, 20));
            }
          }
        })();

        await waitFor(() => committed.size >= 100, 20_000, '100 jobs before the fault');
        await cluster.stop(mode);
        await new Promise((resolve) => setTimeout(resolve, 300)); // requests fail while it is down
        await cluster.start();
        const atRestart = committed.size;
        await waitFor(() => committed.size >= atRestart + 100, 30_000, '100 jobs after the restart');
        stop = true;
        await Promise.all([producer, consumer]);

        // Clear errors: every failure was an OjsError saying the backend is unavailable (503, retryable).
        expect(failures.length).toBeGreaterThan(0);
        for (const failure of failures) expect(failure).toMatchObject({ code: 'backend_unavailable', status: 503, retryable: true });

        // No committed job lost: every enqueue that returned is stored; every ack that returned is completed.
        const stored = await driver.jobList({ queue: 'restart', limit: 100_000, offset: 0 });
        const byId = new Map(stored.jobs.map((j) => [j.id, j.state]));
        for (const id of committed) expect(byId.has(id), `job ${id} acknowledged as enqueued`).toBe(true);
        for (const id of completed) expect(byId.get(id)).toBe('completed');

        // The LISTEN connection came back (it retries with a backoff of at most 2 s): a fresh event from one
        // process reaches the other. Events published while it was down are not replayed (see README).
        await waitFor(() => peer!.events!.listening, 10_000, 'the LISTEN connection to come back');
        const marker = (await engine.enqueue({ type: 'test.after', queue: 'after', args: [] })).job.id;
        await waitFor(() => heard.some((e) => e.subject === marker || (e.data as { job_id?: string }).job_id === marker), 10_000, 'an event after the restart');
        await engine.stop();
      }, 90_000);
    }
  },
);
