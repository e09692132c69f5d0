/** The batched ACK as the engine sends it (`jobCompleteMany`, summaries back), for the script-level probes. */
import type { Driver, TransitionResult } from '@ojskit/core/driver';

export function benchAck(
  driver: Driver,
  jobs: ReadonlyArray<{ id: string; attempt: number }>,
  workerId: string,
  now: number,
  nowIso: string,
): Promise<TransitionResult[]> {
  return driver.jobCompleteMany({ jobs: jobs.map((job) => ({ id: job.id, attempt: job.attempt, workerId })), now, nowIso, returning: 'summary' });
}
