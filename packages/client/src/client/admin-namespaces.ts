/** The client's operator namespaces: workers and their directives, and jobs listed, retried and acted on in bulk. */
import {
  adminPageFromWire,
  bulkJobsFromWire,
  jobFilterToWire,
  workerFromWire,
  type AdminPage,
  type BulkJobResult,
  type JobFilter,
  type WorkerInfo,
  type WorkerSummary,
} from '../mapping/admin.js';
import { jobFromWire, type Job } from '../mapping/job.js';
import type { Transport } from '../transport/transport.js';

/** Paging of admin listings: 1-based pages of at most 100. */
export interface PageQuery {
  page?: number;
  perPage?: number;
}

function pageToWire(query: PageQuery): { page?: number; per_page?: number } {
  return { ...(query.page !== undefined ? { page: query.page } : {}), ...(query.perPage !== undefined ? { per_page: query.perPage } : {}) };
}

/**
 * Workers known to the server, and operator directives delivered on their next heartbeat.
 * @example await client.workers.quiet('worker-7') // it stops fetching; its jobs finish
 */
export class Workers {
  constructor(private readonly api: Transport) {}

  /** Most recent heartbeat first, with a summary of every worker (live by state, and stale). */
  async list(query: PageQuery = {}): Promise<{ workers: WorkerInfo[]; summary: WorkerSummary; page: AdminPage }> {
    const response = await this.api.listWorkers(pageToWire(query));
    return { workers: response.items.map(workerFromWire), summary: response.summary, page: adminPageFromWire(response.pagination) };
  }

  /** Stops the worker fetching (sticky); its running jobs finish. */
  async quiet(id: string): Promise<void> {
    await this.api.setWorkerDirective(id, 'quiet');
  }

  /** Asks the worker to finish its running jobs and exit (sticky). */
  async terminate(id: string): Promise<void> {
    await this.api.setWorkerDirective(id, 'terminate');
  }
}

/** The jobs a bulk cancel, retry or delete acts on: explicit ids, or a filter (then confirmed by the call itself). */
export type BulkSelection = { ids: readonly string[] } | { filter: JobFilter };

function selectionToWire(selection: BulkSelection): Record<string, unknown> {
  return 'ids' in selection ? { job_ids: [...selection.ids] } : { filter: jobFilterToWire(selection.filter), confirm: true };
}

/**
 * Jobs in every state: listed with filters, retried, and cancelled, retried or deleted in bulk.
 * @example await client.jobs.cancelMany({ filter: { queue: 'reports', type: 'report.build' } })
 */
export class Jobs {
  constructor(private readonly api: Transport) {}

  /** Newest first; `since`/`until` bound creation time. */
  async list(filter: JobFilter & PageQuery = {}): Promise<{ jobs: Job[]; page: AdminPage }> {
    const response = await this.api.listJobs({ ...jobFilterToWire(filter), ...pageToWire(filter) });
    return { jobs: response.items.map((job) => jobFromWire(job)), page: adminPageFromWire(response.pagination) };
  }

  /** Revives a discarded job (attempts reset) or runs a retryable one now. */
  async retry(id: string): Promise<Job> {
    return jobFromWire((await this.api.retryJob(id)).job);
  }

  /** Cancels the selected jobs that can be; others are reported `skipped`. */
  async cancelMany(selection: BulkSelection): Promise<BulkJobResult> {
    return bulkJobsFromWire(await this.api.bulkJobs('cancel', selectionToWire(selection)));
  }

  /** Runs retryable jobs now and revives discarded ones. */
  async retryMany(selection: BulkSelection): Promise<BulkJobResult> {
    return bulkJobsFromWire(await this.api.bulkJobs('retry', selectionToWire(selection)));
  }

  /** Deletes finished jobs for good. */
  async deleteMany(selection: BulkSelection): Promise<BulkJobResult> {
    return bulkJobsFromWire(await this.api.bulkJobs('delete', selectionToWire(selection)));
  }
}
