/**
 * A retryable job whose backoff has elapsed is claimable at once, whoever else is promoting due jobs at that
 * instant. A claim promotes due jobs itself (FOR UPDATE SKIP LOCKED) and claims from its own snapshot; before the
 * fix, a claim that met due jobs another statement was promoting (the promoter service, another worker's claim)
 * skipped them, saw them still waiting in its snapshot, and returned nothing although they were claimable; and
 * a claim whose promote step met jobs another claim had just promoted kept them locked to its end, so claims
 * running then skipped them as taken. Both loop the scenario (before the fix each failed in most runs).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Engine } from '@ojskit/core';
import { Statements } from '../src/statements.js';
import { HAVE_PG, openTestDatabase, type TestDatabase } from './support/database.js';

const BACKOFF = { max_attempts: 3, initial_interval: 'PT1S', jitter: false } as const;
const FETCH_AFTER_MS = 1_200;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.runIf(HAVE_PG)('a retryable job is claimable once its backoff elapsed (postgres)', () => {
  let db: TestDatabase | undefined;
  let engine: Engine | undefined;
  afterEach(async () => {
    await engine?.close();
    await db?.drop();
    engine = db = undefined;
  });

  /** Enqueues, claims and NACKs `n` jobs of `queue` (1 s backoff, no jitter); returns their ids. */
  async function nacked(e: Engine, queue: string, n: number): Promise<string[]> {
    await e.enqueueBatch({ jobs: Array.from({ length: n }, () => ({ type: 't', queue, args: [], options: { retry: BACKOFF } })) });
    const { jobs } = await e.fetch({ queues: [queue], count: n, worker_id: 'w' });
    expect(jobs).toHaveLength(n);
    await Promise.all(jobs.map((j) => e.nack({ job_id: j.id, error: { code: 'handler_error', message: 'again' } })));
    return jobs.map((j) => j.id);
  }

  it('every one of many FETCHes made together 1.2 s after the NACKs gets a job (claims promote concurrently)', async () => {
    db = await openTestDatabase({ max: 12 });
    engine = new Engine({ driver: db.driver }); // no promoter service: the claims promote, racing each other
    const rounds = 3;
    for (let round = 0; round < rounds; round++) {
      const queue = `retry-due-${round}`;
      const ids = await nacked(engine, queue, 10);
      await sleep(FETCH_AFTER_MS);
      const fetched = await Promise.all(ids.map((_, i) => engine!.fetch({ queues: [queue], count: 1, worker_id: `w${i}` })));
      const got = fetched.flatMap((f) => f.jobs.map((j) => j.id));
      expect(got.sort()).toEqual([...ids].sort());
    }
  }, 30_000);

  it('a FETCH 1.2 s after the NACK gets its job while another statement is promoting it (the promoter service)', async () => {
    db = await openTestDatabase({ max: 12 });
    engine = new Engine({ driver: db.driver });
    const statements = new Statements(db.schema);
    const promoter = await db.pool.connect();
    try {
      for (let round = 0; round < 3; round++) {
        const queue = `retry-due-held-${round}`;
        const [id] = await nacked(engine, queue, 1);
        await sleep(FETCH_AFTER_MS);
        // The promoter service's statement, caught between its UPDATE and its COMMIT.
        await promoter.query('BEGIN');
        const now = Date.now();
        const { rows } = await promoter.query(statements.text('jobPromote'), [now, new Date(now).toISOString(), 1_000]);
        expect(rows.map((r: { id: string }) => r.id)).toEqual([id]);
        const fetching = engine.fetch({ queues: [queue], count: 1, worker_id: 'w' });
        await sleep(150);
        await promoter.query('COMMIT');
        const { jobs } = await fetching;
        expect(jobs.map((j) => j.id)).toEqual([id]);
      }
    } finally {
      await promoter.query('ROLLBACK').catch(() => {});
      promoter.release();
    }
  }, 30_000);
});
