/** Reading a job's history (ojskit extension `x-job-history`): the lines its driver wrote with each transition. */
import { queueRecordsHistory } from '../../driver/admin.js';
import { OjsError } from '../../errors/ojs-error.js';
import type { JobHistoryResponse } from '../../history/job-history.js';
import type { EngineContext } from '../context.js';
import { assertIdFormat } from '../conflicts.js';

/** Whether the engine's driver records job history. */
export function recordsHistory(ctx: EngineContext): boolean {
  return ctx.driver.capabilities.history === true && ctx.driver.jobHistory !== undefined;
}

/**
 * A job's history, oldest first: `404` for an unknown (or pruned) job, `422 unsupported` where the backend keeps
 * none. A job of a queue that opted out (`history: false`) answers the lines it has, with `recording: false`.
 */
export async function getJobHistory(ctx: EngineContext, id: string): Promise<JobHistoryResponse> {
  assertIdFormat(id);
  if (!recordsHistory(ctx)) throw OjsError.unsupported(`The ${ctx.driver.name} backend does not record job history.`);
  const history = await ctx.driver.jobHistory!({ id });
  if (history === null) throw OjsError.notFound('job', id);
  // The queue's current setting, read from the store (not the engine's cache): another process may have set it.
  const stored = await ctx.driver.jobGet(id);
  const config = stored === null ? null : await ctx.driver.queueConfigGet(stored.job.queue);
  return { job_id: id, history: history.entries, dropped: history.dropped, recording: queueRecordsHistory(config) };
}
