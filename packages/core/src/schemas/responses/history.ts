/** Response body of a job's history (ojskit extension `x-job-history`, `GET /ojs/v1/jobs/{id}/history`). */
import { z } from 'zod';
import { JOB_STATES } from '../../lifecycle/states.js';
import { TRIGGERS, type Trigger } from '../../lifecycle/transitions.js';

/** One transition as the store recorded it. */
export const JobHistoryEntrySchema = z
  .object({
    at: z.string().describe("The engine clock's instant of the transition."),
    from: z.enum(JOB_STATES).nullable().describe("The state before; `null` for the job's creation."),
    to: z.enum(JOB_STATES),
    trigger: z.enum(TRIGGERS as readonly [Trigger, ...Trigger[]]).describe("What moved the job: the transition table's trigger."),
    attempt: z.number().int().describe("The job's attempt after the transition."),
    worker_id: z.string().optional().describe('The worker that claimed the job, or held it when it left `active`.'),
    reason: z.string().optional().describe('Error type of a failure or reclaim; source of a cancel (client, workflow_cancelled, cron_overlap).'),
  })
  .meta({ id: 'JobHistoryEntry' });
export type JobHistoryEntry = z.output<typeof JobHistoryEntrySchema>;

/** A job's history, oldest first; `dropped` counts the oldest lines let go past the bound. */
export const JobHistoryResponseSchema = z
  .object({
    job_id: z.string(),
    history: z.array(JobHistoryEntrySchema),
    dropped: z.number().int().describe('Oldest lines dropped past the per-job bound.'),
    recording: z
      .boolean()
      .describe(
        "Whether the job's queue records history now: false when its configuration opts out (`history: false`, spec/history.md H9), so the job's later transitions get no lines; the lines written before stay.",
      ),
  })
  .meta({ id: 'JobHistoryResponse' });
export type JobHistoryResponse = z.output<typeof JobHistoryResponseSchema>;
