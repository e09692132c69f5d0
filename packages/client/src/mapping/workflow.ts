/** Workflows: the chain/group/batch definitions callers build, and the workflow view read from the wire. */
import type { JobState, WorkflowDescription, WorkflowMemberView, WorkflowState } from '@ojskit/core';
import { enqueueOptionsToWire, type EnqueueOptions } from './enqueue.js';
import { timeFromWire } from './time.js';

/** One job of a workflow. Build it with `step()`. */
export interface WorkflowStep {
  type: string;
  args: unknown[];
  /** A label shown in the workflow's member list. */
  name?: string;
  meta?: Record<string, unknown>;
  options?: Omit<EnqueueOptions, 'id' | 'attributes' | 'meta'>;
}

/** Callbacks of a batch, each a job enqueued once every member has finished. */
export interface BatchCallbacks {
  /** Always enqueued. */
  onComplete?: WorkflowStep;
  /** Enqueued when no member failed. */
  onSuccess?: WorkflowStep;
  /** Enqueued when at least one member failed. */
  onFailure?: WorkflowStep;
}

/** A workflow ready to start with `client.workflows.start()`. */
export type WorkflowDefinition =
  | { kind: 'chain'; name?: string; steps: WorkflowStep[]; options?: WorkflowStep['options'] }
  | { kind: 'group'; name?: string; jobs: WorkflowStep[]; options?: WorkflowStep['options'] }
  | { kind: 'batch'; name?: string; jobs: WorkflowStep[]; callbacks: BatchCallbacks; options?: WorkflowStep['options'] };

/** A member job of a workflow. */
export interface WorkflowMember {
  index: number;
  type: string;
  /** A job state, or `waiting` for a chain step not enqueued yet. */
  state: JobState | 'waiting';
  jobId: string | null;
  result?: unknown;
  name?: string;
}

/** A workflow as the SDK shows it. */
export interface Workflow {
  id: string;
  kind: 'chain' | 'group' | 'batch';
  name: string | null;
  /** `running`, then one of `completed`, `failed`, `cancelled`. */
  state: WorkflowState;
  createdAt: Date;
  completedAt?: Date;
  cancelledAt?: Date;
  total: number;
  completed: number;
  failed: number;
  members: WorkflowMember[];
}

function stepToWire(step: WorkflowStep): Record<string, unknown> {
  const item: Record<string, unknown> = { type: step.type, args: step.args };
  if (step.name !== undefined) item.name = step.name;
  if (step.meta !== undefined) item.meta = step.meta;
  if (step.options !== undefined) {
    const options = enqueueOptionsToWire(step.options);
    if (Object.keys(options).length > 0) item.options = options;
  }
  return item;
}

/** The `POST /workflows` body for a definition. */
export function workflowToWire(definition: WorkflowDefinition): Record<string, unknown> {
  const body: Record<string, unknown> = { type: definition.kind };
  if (definition.name !== undefined) body.name = definition.name;
  if (definition.options !== undefined) body.options = enqueueOptionsToWire(definition.options);
  if (definition.kind === 'chain') body.steps = definition.steps.map(stepToWire);
  else body.jobs = definition.jobs.map(stepToWire);
  if (definition.kind === 'batch') {
    const callbacks: Record<string, unknown> = {};
    if (definition.callbacks.onComplete) callbacks.on_complete = stepToWire(definition.callbacks.onComplete);
    if (definition.callbacks.onSuccess) callbacks.on_success = stepToWire(definition.callbacks.onSuccess);
    if (definition.callbacks.onFailure) callbacks.on_failure = stepToWire(definition.callbacks.onFailure);
    body.callbacks = callbacks;
  }
  return body;
}

function memberFromWire(wire: WorkflowMemberView): WorkflowMember {
  const member: WorkflowMember = {
    index: wire.index,
    type: wire.type,
    state: wire.state,
    jobId: wire.job_id,
  };
  if ('result' in wire && wire.result !== undefined) member.result = wire.result;
  if (wire.name !== undefined) member.name = wire.name;
  return member;
}

/** The SDK view of a served workflow. */
export function workflowFromWire(wire: WorkflowDescription): Workflow {
  const chain = wire.type === 'chain';
  const workflow: Workflow = {
    id: wire.id,
    kind: wire.type,
    name: wire.name ?? null,
    state: wire.state,
    createdAt: new Date(wire.created_at),
    total: (chain ? wire.steps_total : wire.jobs_total) ?? wire.metadata.job_count,
    completed: (chain ? wire.steps_completed : wire.jobs_completed) ?? wire.metadata.completed_count,
    failed: (chain ? wire.steps_failed : wire.jobs_failed) ?? wire.metadata.failed_count,
    members: ((chain ? wire.steps : wire.jobs) ?? []).map(memberFromWire),
  };
  const completedAt = timeFromWire(wire.completed_at);
  if (completedAt) workflow.completedAt = completedAt;
  const cancelledAt = timeFromWire(wire.cancelled_at);
  if (cancelledAt) workflow.cancelledAt = cancelledAt;
  return workflow;
}
