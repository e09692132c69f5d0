/** Response bodies of the system operations: the conformance manifest and health. */
import { z } from 'zod';

const ExtensionSchema = z.object({ name: z.string(), uri: z.string(), version: z.string() });

export const ManifestSchema = z
  .object({
    specversion: z.literal('1.0'),
    ojs_version: z.literal('1.0'),
    implementation: z.object({ name: z.string(), version: z.string(), language: z.literal('typescript'), homepage: z.string().optional() }),
    conformance_level: z.number().int(),
    conformance_tier: z.literal('runtime'),
    protocols: z.array(z.string()),
    backend: z.string(),
    capabilities: z.record(z.string(), z.boolean()),
    extensions: z.object({ official: z.array(ExtensionSchema), experimental: z.array(ExtensionSchema) }),
    unique_job_strength: z.enum(['strong', 'best_effort']),
    limits: z.object({ max_envelope_bytes: z.number().int(), max_batch_size: z.number().int() }),
    endpoints: z
      .object({ base_url: z.string(), manifest: z.string(), health: z.string() })
      .optional()
      .describe('Added by an HTTP server: where this API, the manifest and health are served.'),
  })
  .meta({ id: 'Manifest' });
export type Manifest = z.output<typeof ManifestSchema>;

export const HealthResponseSchema = z
  .object({
    status: z.enum(['ok', 'degraded', 'unhealthy']),
    version: z.literal('1.0'),
    uptime_seconds: z.number().optional().describe('Absent when the health check itself failed.'),
    backend: z.object({
      type: z.string().optional().describe('Absent when the health check itself failed.'),
      status: z.enum(['ok', 'unhealthy']),
      latency_ms: z.number().optional(),
      error: z.string().optional(),
    }),
    draining: z.literal(true).optional().describe('The HTTP server is shutting down (graceful-shutdown extension); status is `degraded`.'),
  })
  .meta({ id: 'HealthResponse' });
export type HealthResponse = z.output<typeof HealthResponseSchema>;
