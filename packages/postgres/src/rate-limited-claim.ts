/**
 * The claim of queues that hold rate limits (spec/rate-limits.md), run when the plain claim (jobClaim.sql) or a
 * dispatch log's claim (jobClaimDispatched.sql) reports 'limited'. One transaction: lock the rate_limits rows of the queues and of the concurrency keys
 * in sight (rateLimitClaim.names, .lock), read the candidates and the counts under those locks
 * (.candidates), choose with core's rule (the same function the memory driver runs), claim the chosen jobs
 * and record each queue's window (.claim, .window). Concurrent limited claims of the same queue or key wait
 * for each other at the lock, so their counts always include what the other took.
 */
import type { Job } from '@ojskit/core';
import {
  claimAllowed,
  claimIntervalMs,
  noteHeld,
  queueClaimLimitOf,
  spacingWaitMs,
  type ClaimLimit,
  type ClaimParams,
  type QueueConfigRecord,
  type QueueClaimLimit,
} from '@ojskit/core/driver';
import type { Pool } from 'pg';
import { RowReader } from './job-row.js';
import { errorCode } from './pg-errors.js';
import type { Statements } from './statements.js';
import { atomically } from './transactions.js';

/** How many waiting jobs per queue a limited claim looks at: jobs behind more refused ones wait for them to drain. */
export const RATE_LIMIT_SCAN = 1000;
/** SQLSTATE of a deadlock: two limited claims creating rate_limits rows in crossing orders; one retries. */
const DEADLOCK = '40P01';
const ATTEMPTS = 3;

/**
 * The jobs a limited claim takes, as the SQL variants of rateLimitClaim.names, .candidates and .claim see them:
 * `ready`: the claimable ones (jobClaim.sql's); `delivered`: the ones a dispatch log delivered (jobClaimDispatched.sql's, in the
 * dispatched state with the marker, by priority, dispatch time, then FIFO).
 */
export type LimitedClaimTakes = 'ready' | 'delivered';

const WAITING: Record<LimitedClaimTakes, (alias: string) => string> = {
  ready: (t) => `${t}.state IN ({{claimable_states}})`,
  delivered: (t) => `${t}.state = {{dispatched_state}} AND ${t}.x_rest ? 'dispatchedAt'`,
};

const SINCE: Record<LimitedClaimTakes, string> = {
  ready: 'NULL::float8',
  delivered: "(a.x_rest ->> 'dispatchedAt')::float8",
};

/** The template values of the `takes` variant of the rateLimitClaim statements. */
function variantValues(takes: LimitedClaimTakes): Record<string, string> {
  return {
    rl_waiting_a: WAITING[takes]('a'),
    rl_waiting_j: WAITING[takes]('j'),
    rl_since: SINCE[takes],
    rl_order: takes === 'ready' ? 'a.priority DESC, a.seq' : `a.priority DESC, ${SINCE.delivered}, a.seq`,
    rl_claim_set: takes === 'ready' ? '{{claim_set}}' : '{{dispatch_claim_set}}',
  };
}

/** Runs rateLimitClaim.<statement> in the `takes` variant. */
function runVariant<R extends Record<string, unknown>>(
  sql: Statements,
  on: Parameters<Statements['run']>[0],
  takes: LimitedClaimTakes,
  statement: string,
  values: unknown[],
): Promise<R[]> {
  return sql.run<R>(on, `rateLimitClaim.${statement}#${takes}`, values, { variantValues: () => variantValues(takes) });
}

interface Candidate {
  id: string;
  queue: string;
  limit: ClaimLimit | undefined;
}

/** What a limited claim took, and its `held` hint (ClaimResult.held) when the rule refused a job. */
export interface RateLimitedClaim {
  jobs: Job[];
  held?: { retryInMs?: number };
}

export async function claimRateLimited(
  sql: Statements,
  pool: Pool,
  params: ClaimParams,
  wanted: number,
  takes: LimitedClaimTakes = 'ready',
): Promise<RateLimitedClaim> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await atomically(pool, undefined, (on) => claimOnce(sql, on, params, wanted, takes));
    } catch (error) {
      if (attempt >= ATTEMPTS || errorCode((error as Error).cause ?? error) !== DEADLOCK) throw error;
    }
  }
}

/**
 * How many available jobs per queue a limited claim reads first: enough for a batch behind a few refused jobs.
 * When they do not fill the batch and there may be more, it reads RATE_LIMIT_SCAN.
 */
function firstScan(wanted: number): number {
  return Math.min(RATE_LIMIT_SCAN, Math.max(64, wanted * 8));
}

async function claimOnce(
  sql: Statements,
  on: Parameters<Statements['run']>[0],
  params: ClaimParams,
  wanted: number,
  takes: LimitedClaimTakes,
): Promise<RateLimitedClaim> {
  let scan = firstScan(wanted);
  for (;;) {
    const claim = await claimWithin(sql, on, params, wanted, scan, takes);
    if (!claim.short || scan >= RATE_LIMIT_SCAN) return claim.held ? { jobs: claim.jobs, held: claim.held } : { jobs: claim.jobs };
    scan = RATE_LIMIT_SCAN;
  }
}

/** One pass over the first `scan` waiting jobs of each queue; `short` when nothing was chosen and a queue had `scan` of them. */
async function claimWithin(
  sql: Statements,
  on: Parameters<Statements['run']>[0],
  params: ClaimParams,
  wanted: number,
  scan: number,
  takes: LimitedClaimTakes,
): Promise<RateLimitedClaim & { short?: boolean }> {
  const [named] = await runVariant<{ names: string[] }>(sql, on, takes, 'names', [params.queues, scan]);
  const names = named?.names ?? [];
  const locked = await sql.run<{ name: string; last_claim_at: number | null; now: number }>(on, 'rateLimitClaim.lock', [names]);
  const storeNow = locked[0]?.now ?? params.now;
  const lastClaim = new Map<string, number>();
  for (const row of locked) if (row.last_claim_at !== null) lastClaim.set(row.name, row.last_claim_at);
  const keys = names.filter((n) => n.startsWith('k:')).map((n) => n.slice(2));
  const lockedKeys = new Set(keys);

  const rows = await runVariant<{
    kind: string;
    id: string | null;
    queue: string;
    rate_limit: ClaimLimit | null;
    active: number | null;
    config: QueueConfigRecord | null;
  }>(sql, on, takes, 'candidates', [params.queues, scan, params.now, keys]);
  const candidates: Candidate[] = [];
  const perQueue = new Map<string, number>();
  const queueActive = new Map<string, number>();
  const queueLimit = new Map<string, QueueClaimLimit>();
  const keyActive = new Map<string, number>();
  for (const row of rows) {
    if (row.kind === 'job') {
      candidates.push({ id: row.id!, queue: row.queue, limit: row.rate_limit ?? undefined });
      perQueue.set(row.queue, (perQueue.get(row.queue) ?? 0) + 1);
    } else if (row.kind === 'queue') {
      queueActive.set(row.queue, row.active ?? 0);
      queueLimit.set(row.queue, queueClaimLimitOf(row.config));
    } else keyActive.set(row.queue, row.active ?? 0);
  }

  const chosen: string[] = [];
  const windows = new Map<string, number>();
  let held: { retryInMs?: number } | undefined;
  for (const c of candidates) {
    if (chosen.length >= wanted) break;
    const ql = queueLimit.get(c.queue) ?? {};
    // a key that appeared after the lock was taken waits for the next claim
    if (c.limit?.key !== undefined && !lockedKeys.has(c.limit.key)) {
      held = noteHeld(held, 1);
      continue;
    }
    const last = lastClaim.get(`q:${c.queue}`);
    const allowed = claimAllowed(c.limit, ql, {
      now: storeNow,
      ...(last !== undefined ? { lastClaimAt: last } : {}),
      keyActive: c.limit?.key !== undefined ? (keyActive.get(c.limit.key) ?? 0) : 0,
      queueActive: queueActive.get(c.queue) ?? 0,
    });
    if (!allowed) {
      held = noteHeld(held, spacingWaitMs(c.limit, ql, storeNow, last));
      continue;
    }
    chosen.push(c.id);
    queueActive.set(c.queue, (queueActive.get(c.queue) ?? 0) + 1);
    if (c.limit?.key !== undefined) keyActive.set(c.limit.key, (keyActive.get(c.limit.key) ?? 0) + 1);
    const interval = claimIntervalMs(c.limit, ql);
    if (interval > 0) {
      lastClaim.set(`q:${c.queue}`, storeNow);
      windows.set(`q:${c.queue}`, interval);
    }
  }
  const heldHint = held ? { held } : {};
  if (chosen.length === 0) return { jobs: [], ...heldHint, ...([...perQueue.values()].some((n) => n >= scan) ? { short: true } : {}) };

  const { rows: claimed, columns } = await sql.runArrays(
    on,
    `rateLimitClaim.claim#${takes}`,
    [chosen, params.queues, params.workerId, params.now, params.nowIso, params.visibilityMs ?? null],
    { variantValues: () => variantValues(takes) },
  );
  if (windows.size > 0) {
    const windowNames = [...windows.keys()];
    await sql.run(on, 'rateLimitClaim.window', [windowNames, windowNames.map(() => storeNow), windowNames.map((n) => windows.get(n)!)]);
  }
  const read = new RowReader(columns);
  const order = new Map(chosen.map((id, i) => [id, i]));
  return { jobs: claimed.map((row) => read.job(row)).sort((a, b) => order.get(a.id)! - order.get(b.id)!), ...heldHint };
}
