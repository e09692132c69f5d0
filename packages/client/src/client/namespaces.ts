/** The client's administrative namespaces: workflows, cron, queues and the dead-letter queue. */
import type { ListQuery } from '@ojskit/core';
import { cronFromWire, cronToWire, type Cron, type CronInput } from '../mapping/cron.js';
import { jobFromWire, type Job } from '../mapping/job.js';
import {
  deadLetterStatsFromWire,
  paginationFromWire,
  queueFromWire,
  queueStatsFromWire,
  type DeadLetterStats,
  type Pagination,
  type Queue,
  type QueueStats,
} from '../mapping/queue.js';
import {
  queueConfigFromWire,
  queueConfigToWire,
  queueRateLimitsFromWire,
  type QueueConfig,
  type QueueConfigInput,
  type QueueRateLimits,
} from '../mapping/admin.js';
import { workflowFromWire, workflowToWire, type Workflow, type WorkflowDefinition } from '../mapping/workflow.js';
import type { Transport } from '../transport/transport.js';

/** Start, inspect and cancel workflows. */
export class Workflows {
  constructor(private readonly api: Transport) {}

  /** Creates the workflow and enqueues its first jobs. */
  async start(definition: WorkflowDefinition): Promise<Workflow> {
    return workflowFromWire((await this.api.createWorkflow(workflowToWire(definition))).workflow);
  }

  async get(id: string): Promise<Workflow> {
    return workflowFromWire((await this.api.getWorkflow(id)).workflow);
  }

  /** Cancels every unfinished member; nothing further is enqueued. */
  async cancel(id: string): Promise<Workflow> {
    return workflowFromWire((await this.api.cancelWorkflow(id)).workflow);
  }
}

/** Recurring jobs. */
export class CronJobs {
  constructor(private readonly api: Transport) {}

  /** Registers a cron, replacing one with the same name. */
  async register(input: CronInput): Promise<Cron & { created: boolean }> {
    const response = await this.api.registerCron(cronToWire(input));
    return { ...cronFromWire(response.cron), created: response.created };
  }

  async list(query: ListQuery & { enabled?: boolean } = {}): Promise<Cron[]> {
    return (await this.api.listCron(query)).crons.map(cronFromWire);
  }

  async get(name: string): Promise<Cron> {
    return cronFromWire((await this.api.getCron(name)).cron);
  }

  async enable(name: string): Promise<Cron> {
    return cronFromWire((await this.api.updateCron(name, { enabled: true })).cron);
  }

  async disable(name: string): Promise<Cron> {
    return cronFromWire((await this.api.updateCron(name, { enabled: false })).cron);
  }

  /** Removes the registration; jobs it already enqueued are left alone. */
  async remove(name: string): Promise<void> {
    await this.api.deleteCron(name);
  }
}

/** Queue pause/resume and statistics. */
export class Queues {
  constructor(private readonly api: Transport) {}

  async list(query: ListQuery = {}): Promise<Queue[]> {
    return (await this.api.listQueues(query)).queues.map(queueFromWire);
  }

  /** Stops delivery from the queue; enqueues still succeed and running jobs finish. */
  async pause(name: string): Promise<void> {
    await this.api.pauseQueue(name);
  }

  async resume(name: string): Promise<void> {
    await this.api.resumeQueue(name);
  }

  async stats(name: string): Promise<QueueStats> {
    return queueStatsFromWire(await this.api.queueStats(name));
  }

  /** The queue's configuration: backpressure bound, concurrency, retention. */
  async config(name: string): Promise<QueueConfig> {
    return queueConfigFromWire(await this.api.getQueueConfig(name));
  }

  /**
   * Replaces the queue's configuration. Past `maxDepth` waiting jobs, enqueues fail with `QUEUE_FULL`.
   * @example await client.queues.configure('emails', { maxDepth: 10_000 })
   */
  async configure(name: string, config: QueueConfigInput): Promise<QueueConfig> {
    return queueConfigFromWire(await this.api.setQueueConfig(name, queueConfigToWire(config)));
  }

  /**
   * Where the queue's rate limits stand: the spacing window (next allowed claim) and the jobs in flight per
   * concurrency key.
   * @example (await client.queues.rateLimits('emails')).window.nextAllowedAt
   */
  async rateLimits(name: string): Promise<QueueRateLimits> {
    return queueRateLimitsFromWire(await this.api.getQueueRateLimits(name));
  }
}

/** Filter of dead-letter listings and bulk retries. */
export interface DeadLetterFilter {
  queue?: string;
  type?: string;
}

/** Jobs that exhausted their retries under `onExhaustion: 'dead_letter'`. */
export class DeadLetter {
  constructor(private readonly api: Transport) {}

  async list(query: DeadLetterFilter & ListQuery = {}): Promise<{ jobs: Job[]; pagination: Pagination }> {
    const response = await this.api.listDeadLetter(query);
    return { jobs: response.jobs.map((job) => jobFromWire(job)), pagination: paginationFromWire(response.pagination) };
  }

  async get(id: string): Promise<Job> {
    return jobFromWire((await this.api.getDeadLetter(id)).job);
  }

  /** Puts the job back in its queue with its attempts reset. */
  async retry(id: string): Promise<Job> {
    return jobFromWire((await this.api.retryDeadLetter(id)).job);
  }

  /** Retries every matching entry; returns how many were retried. */
  async retryAll(filter: DeadLetterFilter & { since?: Date; errorType?: string } = {}): Promise<{ matched: number; succeeded: number; failed: number }> {
    const wireFilter: Record<string, unknown> = {};
    if (filter.queue !== undefined) wireFilter.queue = filter.queue;
    if (filter.type !== undefined) wireFilter.type = filter.type;
    if (filter.since !== undefined) wireFilter.since = filter.since.toISOString();
    if (filter.errorType !== undefined) wireFilter.error_type = filter.errorType;
    const { matched, succeeded, failed } = await this.api.retryDeadLetterBulk({ filter: wireFilter, confirm: true });
    return { matched, succeeded, failed };
  }

  /** Deletes the job permanently. */
  async delete(id: string): Promise<void> {
    await this.api.deleteDeadLetter(id);
  }

  async stats(): Promise<DeadLetterStats> {
    return deadLetterStatsFromWire(await this.api.deadLetterStats());
  }
}
