/** System: the manifest, health, and capabilities the manifest declares absent. */
import { expect } from 'vitest';
import type { Suite } from '../harness.js';
import { expectOjsError } from '../support/errors.js';

/** Capabilities every conformance level this suite tests requires. */
const REQUIRED_CAPABILITIES = [
  'batch_enqueue',
  'cron_jobs',
  'dead_letter',
  'delayed_jobs',
  'job_ttl',
  'priority_queues',
  'unique_jobs',
  'workflows',
  'pause_resume',
];

export function registerSystemCases(suite: Suite): void {
  suite.group('system', () => {
    suite.test('system.manifest', 'the manifest declares version, level, tier, backend, capabilities and limits', async (t) => {
      const manifest = await t.api.manifest();
      expect(manifest).toMatchObject({ specversion: '1.0', ojs_version: '1.0', conformance_tier: 'runtime', implementation: { language: 'typescript' } });
      expect(manifest.conformance_level).toBe(4);
      expect(manifest.protocols).toContain('http');
      expect(typeof manifest.backend).toBe('string');
      expect(['strong', 'best_effort']).toContain(manifest.unique_job_strength);
      for (const [name, value] of Object.entries(manifest.capabilities)) expect(typeof value, `capability ${name}`).toBe('boolean');
      for (const name of REQUIRED_CAPABILITIES) expect(manifest.capabilities[name], `capability ${name}`).toBe(true);
      expect(manifest.limits.max_envelope_bytes).toBeGreaterThanOrEqual(1_048_576);
      expect(manifest.limits.max_batch_size).toBeGreaterThanOrEqual(1_000);
      for (const ext of [...manifest.extensions.official, ...manifest.extensions.experimental]) {
        expect(ext).toMatchObject({ name: expect.any(String), uri: expect.any(String), version: expect.any(String) });
      }
    });

    suite.test('system.health', 'health reports ok with the backend status', async (t) => {
      const health = await t.api.health();
      expect(health).toMatchObject({ status: 'ok', version: '1.0', backend: { status: 'ok' } });
      expect(health.uptime_seconds).toBeGreaterThanOrEqual(0);
    });

    suite.test('system.absent-capability', 'a capability the manifest declares false is refused with 422 unsupported', async (t) => {
      const { capabilities } = await t.api.manifest();
      const request = { type: 'contract.job', args: [], options: { queue: t.queue(), rate_limit: { max_per_second: 5 } } };
      if (capabilities.rate_limiting) expect((await t.api.enqueue(request)).job.state).toBe('available');
      else await expectOjsError(t.api.enqueue(request), { code: 'unsupported' });
    });
  });
}
