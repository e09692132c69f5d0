/** Builders for the three workflow shapes: `chain(…)`, `group(…)`, `batch(…)`, made of `step(…)`s. */
import type { BatchCallbacks, WorkflowDefinition, WorkflowStep } from '../mapping/workflow.js';

/**
 * One job of a workflow.
 * @example step('image.resize', [url, 800], { queue: 'media' })
 */
export function step(type: string, args: unknown[] = [], options?: WorkflowStep['options'] & { name?: string; meta?: Record<string, unknown> }): WorkflowStep {
  const item: WorkflowStep = { type, args };
  if (options) {
    const { name, meta, ...rest } = options;
    if (name !== undefined) item.name = name;
    if (meta !== undefined) item.meta = meta;
    if (Object.keys(rest).length > 0) item.options = rest;
  }
  return item;
}

/** Options shared by every workflow shape. */
export interface WorkflowOptions {
  name?: string;
  /** Defaults applied to every member (each step's own options win). */
  options?: WorkflowStep['options'];
}

function withOptions<T extends WorkflowDefinition>(definition: T, options: WorkflowOptions): T {
  if (options.name !== undefined) definition.name = options.name;
  if (options.options !== undefined) definition.options = options.options;
  return definition;
}

/**
 * Steps run one after another; each step sees the results of the earlier ones in `parentResults`.
 * A failed step fails the chain and later steps never run.
 * @example chain([step('fetch', [url]), step('parse'), step('store')], { name: 'ingest' })
 */
export function chain(steps: WorkflowStep[], options: WorkflowOptions = {}): WorkflowDefinition {
  return withOptions({ kind: 'chain', steps }, options);
}

/**
 * Jobs run in parallel and independently; the group completes when all have finished.
 * @example group([step('thumb', [a]), step('thumb', [b])])
 */
export function group(jobs: WorkflowStep[], options: WorkflowOptions = {}): WorkflowDefinition {
  return withOptions({ kind: 'group', jobs }, options);
}

/**
 * A group with callbacks, each enqueued exactly once when every member has finished.
 * @example batch([step('charge', [1]), step('charge', [2])], { onComplete: step('report') })
 */
export function batch(jobs: WorkflowStep[], callbacks: BatchCallbacks, options: WorkflowOptions = {}): WorkflowDefinition {
  if (!callbacks.onComplete && !callbacks.onSuccess && !callbacks.onFailure) {
    throw new TypeError('A batch needs at least one callback (onComplete, onSuccess or onFailure).');
  }
  return withOptions({ kind: 'batch', jobs, callbacks }, options);
}
