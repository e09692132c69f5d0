/** Response bodies of the workflow operations: a workflow as served (`W` in the protocol) and its wrapper. */
import { z } from 'zod';
import { JOB_STATES } from '../../lifecycle/states.js';

export const WorkflowStateSchema = z.enum(['running', 'completed', 'failed', 'cancelled']);
export type WorkflowState = z.output<typeof WorkflowStateSchema>;

export const WorkflowTypeSchema = z.enum(['chain', 'group', 'batch']);

/** One step (chain) or member (group, batch); `waiting` until its job exists. */
export const WorkflowMemberViewSchema = z.object({
  index: z.number().int(),
  type: z.string(),
  state: z.union([z.enum(JOB_STATES), z.literal('waiting')]),
  job_id: z.string().nullable(),
  result: z.unknown().optional(),
  name: z.string().optional(),
});
export type WorkflowMemberView = z.output<typeof WorkflowMemberViewSchema>;

const WorkflowMetadataSchema = z.object({
  created_at: z.string(),
  started_at: z.string().optional(),
  completed_at: z.string().optional(),
  job_count: z.number().int(),
  completed_count: z.number().int(),
  failed_count: z.number().int(),
});

/** A workflow as served: chains count `steps_*` and list `steps`; groups and batches count `jobs_*` and list `jobs`. */
export const WorkflowDescriptionSchema = z
  .object({
    id: z.string(),
    type: WorkflowTypeSchema,
    name: z.string().nullable(),
    state: WorkflowStateSchema,
    created_at: z.string(),
    completed_at: z.string().optional(),
    cancelled_at: z.string().optional(),
    steps_total: z.number().int().optional(),
    steps_completed: z.number().int().optional(),
    steps_failed: z.number().int().optional(),
    jobs_total: z.number().int().optional(),
    jobs_completed: z.number().int().optional(),
    jobs_failed: z.number().int().optional(),
    callbacks: z.record(z.string(), z.unknown()).optional(),
    metadata: WorkflowMetadataSchema,
    steps: z.array(WorkflowMemberViewSchema).optional(),
    jobs: z.array(WorkflowMemberViewSchema).optional(),
  })
  .meta({ id: 'Workflow' });
export type WorkflowDescription = z.output<typeof WorkflowDescriptionSchema>;

/** `{"workflow":W}` plus the top-level mirror the SDKs read. */
export const WorkflowResponseSchema = z
  .object({
    workflow: WorkflowDescriptionSchema,
    id: z.string(),
    type: WorkflowTypeSchema,
    name: z.string().nullable(),
    state: WorkflowStateSchema,
    metadata: WorkflowMetadataSchema,
  })
  .meta({ id: 'WorkflowResponse' });
export type WorkflowResponse = z.output<typeof WorkflowResponseSchema>;
