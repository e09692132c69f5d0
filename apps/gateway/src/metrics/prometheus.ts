/**
 * Prometheus text exposition for `GET /metrics`. Counters and histograms are fed by the events this gateway
 * hears: its own, and with a cross-process transport (Redis, PostgreSQL) every other process's on the same
 * store too. Queue gauges and the stuck-job gauge are read from the store at scrape time. No job ids as labels.
 */
import type { OjsEvent } from '@ojskit/core';
import type { GatewayEngine } from '../engine-port.js';
import { Counter, Histogram, labelText, type LabelSet } from './exposition.js';
import { JobTimingMetrics } from './job-timing.js';

/** Upper bounds (seconds) of the job duration histogram. */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300];

/** At most this many stuck jobs are read per scrape; past it the gauge is a lower bound. */
const OVERDUE_SCRAPE_LIMIT = 1_000;

/** Counts per second over the last minute (wall clock: this is an operator's view, not protocol timing). */
class MinuteWindow {
  private readonly buckets = new Array<number>(60).fill(0);
  private readonly stamps = new Array<number>(60).fill(-1);

  add(nowMs: number): void {
    const second = Math.floor(nowMs / 1000);
    const slot = second % 60;
    if (this.stamps[slot] !== second) {
      this.stamps[slot] = second;
      this.buckets[slot] = 0;
    }
    this.buckets[slot]! += 1;
  }

  total(nowMs: number): number {
    const second = Math.floor(nowMs / 1000);
    let sum = 0;
    for (let i = 0; i < 60; i++) if (second - this.stamps[i]! < 60) sum += this.buckets[i]!;
    return sum;
  }
}

/** Gateway metrics: event-driven counters, request counters, and queue gauges read at scrape time. */
export class GatewayMetrics {
  private readonly enqueued = new Counter('ojs_jobs_enqueued_total', 'Jobs accepted by PUSH (any initial state).');
  private readonly completed = new Counter('ojs_jobs_completed_total', 'Jobs acknowledged as completed.');
  private readonly failed = new Counter('ojs_jobs_failed_total', 'Failed attempts (FAIL and server-side timeouts).');
  private readonly discarded = new Counter('ojs_jobs_discarded_total', 'Jobs discarded after failure or expiry.');
  private readonly requests = new Counter('ojs_http_requests_total', 'HTTP requests served, by method and status.');
  private readonly duration = new Histogram('ojs_job_duration_seconds', 'Time from start to completion of completed jobs.', DURATION_BUCKETS);
  private readonly timing = new JobTimingMetrics();
  private readonly completedWindow = new MinuteWindow();
  private readonly failedWindow = new MinuteWindow();
  private readonly unsubscribe: () => void;

  constructor(private readonly engine: GatewayEngine) {
    this.unsubscribe = engine.subscribe({}, (event) => this.onEvent(event));
  }

  private onEvent(event: OjsEvent): void {
    this.timing.observe(event);
    const data = event.data;
    if (typeof data['queue'] !== 'string' || typeof data['job_type'] !== 'string') return;
    const labels = this.jobLabels(data['queue'], data['job_type']);
    switch (event.type) {
      case 'job.enqueued':
      case 'job.scheduled':
      case 'job.pending':
        // A promoted or activated job emits `job.enqueued` again; count only arrivals from PUSH.
        if (data['from'] === undefined || data['from'] === null) this.enqueued.inc(labels);
        break;
      case 'job.completed':
        this.completed.inc(labels);
        this.completedWindow.add(Date.now());
        if (typeof data['duration_ms'] === 'number') this.duration.observe(labels, data['duration_ms'] / 1000);
        break;
      case 'job.failed':
        this.failed.inc(labels);
        this.failedWindow.add(Date.now());
        break;
      case 'job.discarded':
      case 'job.expired':
        this.discarded.inc(labels);
        break;
      default:
        break;
    }
  }

  /** Completions and failures seen by this gateway over the last minute. */
  throughput(): { processed_per_minute: number; failed_per_minute: number } {
    const now = Date.now();
    return { processed_per_minute: this.completedWindow.total(now), failed_per_minute: this.failedWindow.total(now) };
  }

  private readonly requestLabels = new Map<string, LabelSet>();
  private readonly jobLabelSets = new Map<string, LabelSet>();

  /** One label set object per queue and job type, so counters skip rebuilding their key. */
  private jobLabels(queue: string, jobType: string): LabelSet {
    const key = `${queue}\u0000${jobType}`;
    let labels = this.jobLabelSets.get(key);
    if (!labels) {
      labels = { queue, job_type: jobType };
      this.jobLabelSets.set(key, labels);
    }
    return labels;
  }

  /** Counts one served request (label sets are cached: this runs on every request). */
  countRequest(method: string, status: number): void {
    const key = `${method} ${status}`;
    let labels = this.requestLabels.get(key);
    if (!labels) {
      labels = { method, status: String(status) };
      this.requestLabels.set(key, labels);
    }
    this.requests.inc(labels);
  }

  /** The exposition text. */
  async render(): Promise<string> {
    const lines: string[] = [];
    this.enqueued.render(lines);
    this.completed.render(lines);
    this.failed.render(lines);
    this.discarded.render(lines);
    this.duration.render(lines);
    this.timing.render(lines);
    this.requests.render(lines);
    lines.push('# HELP ojs_queue_depth Jobs waiting: available + scheduled + retryable + pending.', '# TYPE ojs_queue_depth gauge');
    const active: string[] = ['# HELP ojs_queue_active Jobs being processed.', '# TYPE ojs_queue_active gauge'];
    const paused: string[] = ['# HELP ojs_queue_paused 1 when the queue is paused.', '# TYPE ojs_queue_paused gauge'];
    for (const name of await listQueueNames(this.engine)) {
      const stats = await this.engine.queueStats(name);
      const labels = labelText({ queue: name });
      lines.push(`ojs_queue_depth${labels} ${stats.stats.depth}`);
      active.push(`ojs_queue_active${labels} ${stats.active}`);
      paused.push(`ojs_queue_paused${labels} ${stats.paused ? 1 : 0}`);
    }
    lines.push(...active, ...paused);
    await this.renderOverdue(lines);
    return `${lines.join('\n')}\n`;
  }

  /** `ojs_jobs_overdue` per queue: active jobs past a deadline or held by a silent worker, read at scrape time. */
  private async renderOverdue(lines: string[]): Promise<void> {
    if (!this.engine.listOverdue) return;
    const { jobs, truncated } = await this.engine.listOverdue({ limit: OVERDUE_SCRAPE_LIMIT });
    const perQueue = new Map<string, number>();
    for (const job of jobs) perQueue.set(job.queue, (perQueue.get(job.queue) ?? 0) + 1);
    lines.push(
      '# HELP ojs_jobs_overdue Active jobs past their visibility deadline or execution timeout, or held by a worker that stopped heartbeating (ids: GET /ojs/v1/admin/overdue).',
      '# TYPE ojs_jobs_overdue gauge',
    );
    for (const [queue, count] of perQueue) lines.push(`ojs_jobs_overdue${labelText({ queue })} ${count}`);
    lines.push(
      `# HELP ojs_jobs_overdue_truncated 1 when more than ${OVERDUE_SCRAPE_LIMIT} jobs are overdue and ojs_jobs_overdue counts only the first.`,
      '# TYPE ojs_jobs_overdue_truncated gauge',
      `ojs_jobs_overdue_truncated ${truncated ? 1 : 0}`,
    );
  }

  close(): void {
    this.unsubscribe();
  }
}

/** Every queue name, following the pagination of `listQueues`. */
export async function listQueueNames(engine: GatewayEngine): Promise<string[]> {
  const names: string[] = [];
  for (let offset = 0; ;) {
    const page = await engine.listQueues({ limit: 200, offset });
    names.push(...page.queues.map((queue) => queue.name));
    if (!page.pagination.has_more || page.queues.length === 0) return names;
    offset += page.queues.length;
  }
}
