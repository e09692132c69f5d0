/** Runs guarded transitions: one statement per op shape and round, then one read for the ops that lost. */
import type { TransitionOp, TransitionResult } from '@ojskit/core/driver';
import { RowReader, type JobRow } from './job-row.js';
import type { Queryable, Statements } from './statements.js';
import { OpEncoder, lostResult, roundsByDistinctId, shapeStatement, wonResults, type OpShape } from './transition-ops.js';

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
    const groups = new Map<string, { shape: OpShape; records: string[] }>();
    // In id order: statements that lock several rows then lock them in one order (where the plan follows the
    // records), so two batches over the same jobs queue behind each other instead of deadlocking.
    round.sort((a, b) => (ops[a]!.id < ops[b]!.id ? -1 : ops[a]!.id > ops[b]!.id ? 1 : 0));
    for (const index of round) {
      const { text, shape, key } = encoder.encode(ops[index]!, index);
      const group = groups.get(key);
      if (group === undefined) groups.set(key, { shape, records: [text] });
      else group.records.push(text);
    }
    await Promise.all(
      [...groups].map(async ([key, { shape, records }]) => {
        const statement = shapeStatement(shape, key, returning);
        const { rows, columns } = await sql.runArrays(on, statement.name, [`[${records.join(',')}]`], { oneOff, variantValues: statement.values });
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
