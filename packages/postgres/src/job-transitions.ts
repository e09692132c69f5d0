/**
 * Runs guarded transitions: one statement per op shape and round, then one read for the ops that lost. The named
 * primitives (`jobCompleteMany`, `jobFailMany`) run through it as the ops core builds from its effects.
 */
import { completionOp, failureOp, type CompleteManyParams, type FailManyParams, type TransitionOp, type TransitionResult } from '@ojskit/core/driver';
import { jobFromRow, RowReader, type JobRow } from './job-row.js';
import type { Queryable, Statements } from './statements.js';
import { OpEncoder, lostResult, roundsByDistinctId, shapeStatement, wonResults, type OpShape } from './transition-ops.js';

/** A JSON object's text with an `sg` member first (the number jobTransitionMany.sql joins an op and its shared part by). */
function numbered(sg: number, object: string): string {
  return object === '{}' ? `{"sg":${sg}}` : `{"sg":${sg},${object.slice(1)}`;
}

/**
 * Applies `ops` (results in op order). Ops of a round have distinct ids and are grouped by shape; each group
 * is one UPDATE statement. Ops that lost are read afresh by one more statement, so each reports the state
 * that beat it.
 */
export async function transitionJobs(sql: Statements, on: Queryable, ops: readonly TransitionOp[], oneOff = false): Promise<TransitionResult[]> {
  const results = new Array<TransitionResult>(ops.length);
  const returning = { job: sql.value('job_envelope_columns_j'), summary: sql.value('job_summary_columns_j') };
  const encoder = new OpEncoder();
  for (const round of roundsByDistinctId(ops)) {
    const groups = new Map<string, { shape: OpShape; records: string[]; shared: Map<string, number> }>();
    // In id order: statements that lock several rows then lock them in one order (where the plan follows the
    // records), so two batches over the same jobs queue behind each other instead of deadlocking.
    round.sort((a, b) => (ops[a]!.id < ops[b]!.id ? -1 : ops[a]!.id > ops[b]!.id ? 1 : 0));
    for (const index of round) {
      const { text, shared, shape, key } = encoder.encode(ops[index]!, index);
      let group = groups.get(key);
      if (group === undefined) groups.set(key, (group = { shape, records: [], shared: new Map() }));
      // Each shared part is sent once, numbered (`sg`); each op names the one it takes.
      let sg = group.shared.get(shared);
      if (sg === undefined) group.shared.set(shared, (sg = group.shared.size));
      group.records.push(numbered(sg, text));
    }
    await Promise.all(
      [...groups].map(async ([key, { shape, records, shared }]) => {
        const statement = shapeStatement(shape, key, returning, sql.history);
        const params = [`[${records.join(',')}]`, `[${[...shared].map(([text, sg]) => numbered(sg, text)).join(',')}]`];
        const { rows, columns } = await sql.runArrays(on, statement.name, params, { oneOff, variantValues: statement.values });
        wonResults(ops, rows, new RowReader(columns), results);
      }),
    );
    const losers = round.filter((index) => results[index] === undefined);
    if (losers.length === 0) continue;
    const current = await sql.run<JobRow>(on, 'jobTransitionMany.losers', [losers.map((index) => ops[index]!.id)], { oneOff });
    const byId = new Map(current.map((r) => [r.id, r]));
    for (const index of losers) results[index] = lostResult(byId.get(ops[index]!.id));
  }
  return results;
}

/**
 * ACKs (`Driver.jobCompleteMany`). The completed workflow members of a summary batch are read back in full by one
 * more statement: the engine advances their workflows with them.
 */
export async function completeJobs(sql: Statements, on: Queryable, params: CompleteManyParams): Promise<TransitionResult[]> {
  const returning = params.returning ?? 'job';
  const results = await transitionJobs(
    sql,
    on,
    params.jobs.map((item) => completionOp(item, params.now, params.nowIso, returning)),
  );
  if (returning === 'job') return results;
  const members: number[] = [];
  for (let i = 0; i < results.length; i++) {
    const r = results[i]!;
    if (r.ok && 'summary' in r && r.summary.workflow_id !== undefined) members.push(i);
  }
  if (members.length === 0) return results;
  const rows = await sql.run<JobRow>(on, 'jobTransitionMany.losers', [members.map((i) => params.jobs[i]!.id)]);
  const byId = new Map(rows.map((r) => [r.id, r]));
  for (const i of members) {
    const row = byId.get(params.jobs[i]!.id);
    const won = results[i] as Extract<TransitionResult, { ok: true }>;
    if (row !== undefined) results[i] = { ok: true, from: won.from, job: jobFromRow(row) };
  }
  return results;
}

/** FAILs, requeues, timeouts and reclaims (`Driver.jobFailMany`). */
export function failJobs(sql: Statements, on: Queryable, params: FailManyParams): Promise<TransitionResult[]> {
  return transitionJobs(
    sql,
    on,
    params.jobs.map((item) => failureOp(item, params.now, params.nowIso)),
  );
}
