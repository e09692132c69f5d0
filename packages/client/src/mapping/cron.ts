/** Cron registrations: the SDK's camelCase form and the protocol's template form. */
import type { CronDescription } from '@ojskit/core';
import { enqueueOptionsToWire, type EnqueueOptions } from './enqueue.js';
import { timeFromWire } from './time.js';

/** What to do when an occurrence comes while the previous run is still going. */
export type OverlapPolicy = 'skip' | 'allow' | 'cancel_previous' | 'enqueue';

/** A cron to register (an upsert by name). */
export interface CronInput {
  /** Unique name, `^[a-z0-9][a-z0-9.-]*$`. */
  name: string;
  /** 5-field expression (`*\/5 * * * *`) or a shorthand (`@daily`). */
  expression: string;
  /** IANA zone the expression is read in (default `UTC`). */
  timezone?: string;
  /** Default `skip`. */
  overlapPolicy?: OverlapPolicy;
  enabled?: boolean;
  description?: string;
  /** The job each occurrence enqueues. */
  job: {
    type: string;
    args?: unknown[];
    meta?: Record<string, unknown>;
    options?: Omit<EnqueueOptions, 'id' | 'attributes' | 'meta' | 'delay' | 'scheduledAt'>;
  };
}

/** A registered cron. */
export interface Cron {
  name: string;
  expression: string;
  timezone: string;
  overlapPolicy: string;
  enabled: boolean;
  description?: string;
  /** The template; its `options` are shown as the server stores them (wire form). */
  job: { type: string; args: unknown[]; meta?: Record<string, unknown>; options?: Record<string, unknown> };
  createdAt: Date;
  /** `null` while disabled. */
  nextRunAt: Date | null;
  lastRunAt: Date | null;
  runCount: number;
}

/** The `POST /cron` body (template form). */
export function cronToWire(input: CronInput): Record<string, unknown> {
  const template: Record<string, unknown> = { type: input.job.type, args: input.job.args ?? [] };
  if (input.job.meta !== undefined) template.meta = input.job.meta;
  if (input.job.options !== undefined) template.options = enqueueOptionsToWire(input.job.options);
  const body: Record<string, unknown> = { name: input.name, expression: input.expression, job_template: template };
  if (input.timezone !== undefined) body.timezone = input.timezone;
  if (input.overlapPolicy !== undefined) body.overlap_policy = input.overlapPolicy;
  if (input.enabled !== undefined) body.enabled = input.enabled;
  if (input.description !== undefined) body.description = input.description;
  return body;
}

/** The SDK view of a served cron. */
export function cronFromWire(wire: CronDescription): Cron {
  const template = wire.job_template ?? { type: wire.type, args: wire.args, options: wire.options };
  const cron: Cron = {
    name: wire.name,
    expression: wire.expression ?? wire.cron,
    timezone: wire.timezone,
    overlapPolicy: wire.overlap_policy,
    enabled: wire.enabled,
    job: { ...template, args: template.args ?? [] },
    createdAt: new Date(wire.created_at),
    nextRunAt: timeFromWire(wire.next_run_at) ?? null,
    lastRunAt: timeFromWire(wire.last_run_at) ?? null,
    runCount: wire.run_count,
  };
  if (wire.description !== undefined) cron.description = wire.description;
  return cron;
}
