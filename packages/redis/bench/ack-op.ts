/** The batched ACK's transition op as the engine sends it (core's ackOp, which is internal), for the script-level probes. */
import { allowedFrom, type TransitionOp } from '@ojskit/core/driver';

export function benchAckOp(job: { id: string; attempt: number }, workerId: string, now: number, nowIso: string): TransitionOp {
  return {
    id: job.id,
    from: allowedFrom('completed', 'ack'),
    to: 'completed',
    expect: { workerId, attempt: job.attempt },
    set: { completed_at: nowIso },
    unset: ['error', 'worker_id', 'next_attempt_at'],
    x: { finishedAt: now, visibleUntil: null, timeoutAt: null, claimVisibilityMs: null },
    returning: 'summary',
  };
}
