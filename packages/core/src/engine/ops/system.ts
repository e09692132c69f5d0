/** Manifest and health: what this server is, and whether its backend answers. */
import type { HealthResponse, Manifest } from '../../api/responses.js';
import { MAX_ENVELOPE_BYTES } from '../../schemas/patterns.js';
import type { EngineContext } from '../context.js';
import { recordsHistory } from './history.js';

/** Extensions with full wire support in the engine. */
const OFFICIAL_EXTENSIONS = ['dead-letter', 'progress', 'events', 'admin-api', 'backpressure', 'bulk-operations', 'graceful-shutdown'].map((name) => ({
  name,
  uri: `urn:ojs:ext:${name}`,
  version: '1.0',
}));
const EXPERIMENTAL_EXTENSIONS = [{ name: 'x-ack-batch', uri: 'urn:ojskit:ext:ack-batch', version: '1.0' }];
/** Advertised where the backend records each job's transitions (`GET /ojs/v1/jobs/:id/history`). */
const HISTORY_EXTENSION = { name: 'x-job-history', uri: 'urn:ojskit:ext:job-history', version: '1.0' };

export function manifest(ctx: EngineContext): Manifest {
  const caps = ctx.driver.capabilities;
  return {
    specversion: '1.0',
    ojs_version: '1.0',
    implementation: { ...ctx.settings.implementation, language: 'typescript' },
    conformance_level: 4,
    conformance_tier: 'runtime',
    protocols: ['http'],
    backend: ctx.driver.name,
    capabilities: {
      batch_enqueue: true,
      cron_jobs: true,
      dead_letter: true,
      delayed_jobs: true,
      job_ttl: true,
      priority_queues: true,
      rate_limiting: caps.rateLimiting === true,
      schema_validation: false,
      unique_jobs: true,
      workflows: true,
      pause_resume: true,
      transactional_enqueue: caps.transactionalEnqueue,
      job_history: recordsHistory(ctx),
    },
    extensions: {
      official: OFFICIAL_EXTENSIONS,
      experimental: recordsHistory(ctx) ? [...EXPERIMENTAL_EXTENSIONS, HISTORY_EXTENSION] : EXPERIMENTAL_EXTENSIONS,
    },
    unique_job_strength: caps.uniqueStrength,
    limits: { max_envelope_bytes: MAX_ENVELOPE_BYTES, max_batch_size: ctx.settings.maxBatchSize },
  };
}

export async function health(ctx: EngineContext): Promise<HealthResponse> {
  const uptime = Math.floor((Date.now() - ctx.startedAt) / 1000);
  const started = performance.now();
  try {
    await ctx.driver.ping();
    const latency = Math.round((performance.now() - started) * 100) / 100;
    return { status: 'ok', version: '1.0', uptime_seconds: uptime, backend: { type: ctx.driver.name, status: 'ok', latency_ms: latency } };
  } catch (err) {
    return {
      status: 'degraded',
      version: '1.0',
      uptime_seconds: uptime,
      backend: { type: ctx.driver.name, status: 'unhealthy', error: err instanceof Error ? err.message : String(err) },
    };
  }
}
