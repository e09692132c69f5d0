/** Response bodies of the OJS operations, exactly as they go on the wire. */
import { z } from 'zod';
import { OjsErrorBodySchema } from '../errors/ojs-error.js';
import type { JobState } from '../lifecycle/states.js';
import type { Job } from '../schemas/job.js';
import type { OjsEvent } from '../events/event.js';
import type { QueuePressure } from './admin-responses.js';

export interface Pagination {
  total: number;
  limit: number;
  offset: number;
  has_more: boolean;
  next_cursor?: string;
}

export interface EnqueueResponse {
  job: Job;
  /** True when a unique policy with `ignore` matched an existing job (HTTP 200 instead of 201). */
  deduplicated?: true;
  /** Backpressure: the job's queue is at or past its warning threshold. */
  queue_pressure?: QueuePressure;
}

export interface BatchEnqueueResponse {
  jobs: Job[];
  count: number;
  /** Backpressure: the most pressed queue of the batch at or past its warning threshold. */
  queue_pressure?: QueuePressure;
}

export interface JobResponse {
  job: Job;
}

export interface FetchResponse {
  jobs: Job[];
  job?: Job;
}

export interface AckResponse {
  acknowledged: true;
  id: string;
  job_id: string;
  state: 'completed';
  completed_at: string;
  job: Job;
}

export interface NackResponse {
  id: string;
  job_id: string;
  state: JobState;
  attempt: number;
  max_attempts: number;
  job: Job;
  next_attempt_at?: string;
  retry_delay_ms?: number;
  discarded_at?: string;
  completed_at?: string;
  dead_lettered?: boolean;
}

export type WorkerDirective = 'running' | 'quiet' | 'terminate';

export interface HeartbeatResponse {
  state: WorkerDirective;
  directive: WorkerDirective;
  jobs_extended: string[];
  server_time: string;
  jobs_cancelled?: string[];
}

export interface ProgressResponse {
  job_id: string;
  state: JobState;
  progress: number | null;
  message: string | null;
  data: unknown;
  updated_at: string | null;
}

export type StateCounts = Record<JobState, number>;

export interface QueueSummary {
  name: string;
  status: 'active' | 'paused';
  paused: boolean;
  created_at?: string;
}

export interface QueueListResponse {
  queues: QueueSummary[];
  pagination: Pagination;
}

export type QueueStatsResponse = {
  queue: { name: string; paused: boolean } & StateCounts;
  stats: { queue: string; depth: number } & StateCounts;
  name: string;
  paused: boolean;
  computed_at: string;
} & StateCounts;

export interface QueuePauseResponse {
  queue: { name: string; paused: boolean; status: 'active' | 'paused'; paused_at?: string; resumed_at?: string };
}

export interface JobListResponse {
  jobs: Job[];
  pagination: Pagination;
}

export interface DeadLetterDeleteResponse {
  deleted: true;
  job_id: string;
}

export interface BulkActionResponse {
  action: string;
  matched: number;
  succeeded: number;
  failed: number;
  errors?: Array<{ job_id: string; error: string }>;
}

export interface DeadLetterStatsResponse {
  total: number;
  by_queue: Record<string, number>;
  by_error_type: Record<string, number>;
  oldest_at: string | null;
  newest_at: string | null;
}

/** A cron as served (`D` in the protocol). */
export interface CronDescription {
  name: string;
  expression: string;
  cron: string;
  timezone: string;
  overlap_policy: string;
  enabled: boolean;
  status: 'active' | 'disabled';
  job_template: { type: string; args: unknown[]; meta?: Record<string, unknown>; options?: Record<string, unknown> };
  type: string;
  args: unknown[];
  options: Record<string, unknown>;
  description?: string;
  created_at: string;
  next_run_at: string | null;
  last_run_at: string | null;
  run_count: number;
}

export interface CronResponse {
  cron: CronDescription;
  cron_job: CronDescription;
}

export interface CronRegisterResponse extends CronResponse {
  /** True when a new cron was created (HTTP 201), false when one was replaced (200). */
  created: boolean;
}

export interface CronListResponse {
  crons: CronDescription[];
  cron_jobs: CronDescription[];
  count: number;
  pagination: Pagination;
}

export interface CronDeleteResponse {
  cron: CronDescription;
  deleted: true;
  name: string;
}

export type WorkflowState = 'running' | 'completed' | 'failed' | 'cancelled';

export interface WorkflowMemberView {
  index: number;
  type: string;
  state: JobState | 'waiting' | 'cancelled';
  job_id: string | null;
  result?: unknown;
  name?: string;
}

/** A workflow as served (`W` in the protocol). */
export interface WorkflowDescription {
  id: string;
  type: 'chain' | 'group' | 'batch';
  name: string | null;
  state: WorkflowState;
  created_at: string;
  completed_at?: string;
  cancelled_at?: string;
  steps_total?: number;
  steps_completed?: number;
  steps_failed?: number;
  jobs_total?: number;
  jobs_completed?: number;
  jobs_failed?: number;
  callbacks?: Record<string, unknown>;
  metadata: {
    created_at: string;
    started_at?: string;
    completed_at?: string;
    job_count: number;
    completed_count: number;
    failed_count: number;
  };
  steps?: WorkflowMemberView[];
  jobs?: WorkflowMemberView[];
}

/** `{"workflow":W}` plus the top-level mirror the SDK reads. */
export interface WorkflowResponse {
  workflow: WorkflowDescription;
  id: string;
  type: WorkflowDescription['type'];
  name: string | null;
  state: WorkflowState;
  metadata: WorkflowDescription['metadata'];
}

export interface EventPollResponse {
  events: OjsEvent[];
  cursor: string | null;
  has_more: boolean;
  /**
   * Present (true) when `after` named an event this server no longer keeps (or never saw): `events` then
   * start from the oldest kept, and events in between may be missing.
   */
  cursor_expired?: true;
}

export interface Manifest {
  specversion: '1.0';
  ojs_version: '1.0';
  implementation: { name: string; version: string; language: 'typescript'; homepage?: string };
  conformance_level: number;
  conformance_tier: 'runtime';
  protocols: string[];
  backend: string;
  capabilities: Record<string, boolean>;
  extensions: { official: Array<{ name: string; uri: string; version: string }>; experimental: Array<{ name: string; uri: string; version: string }> };
  unique_job_strength: 'strong' | 'best_effort';
  limits: { max_envelope_bytes: number; max_batch_size: number };
}

export interface HealthResponse {
  status: 'ok' | 'degraded' | 'unhealthy';
  version: '1.0';
  uptime_seconds: number;
  backend: { type: string; status: 'ok' | 'unhealthy'; latency_ms?: number; error?: string };
}

/** One outcome of a batched ACK (ojskit extension, `POST /ojs/v1/workers/ack/batch`), in request order. */
export const AckManyResultSchema = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), job_id: z.string(), state: z.literal('completed') }),
  z.object({ ok: z.literal(false), job_id: z.string(), error: OjsErrorBodySchema }),
]);
export type AckManyResult = z.infer<typeof AckManyResultSchema>;

/** A batched ACK's response: each job succeeds or fails on its own. */
export const AckManyResponseSchema = z.object({ results: z.array(AckManyResultSchema) });
export type AckManyResponse = z.infer<typeof AckManyResponseSchema>;
