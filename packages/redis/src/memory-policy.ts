/**
 * The start-up check of Redis's eviction policy. Under any policy but `noeviction`, Redis may silently delete
 * job hashes or indexes when it reaches `maxmemory`: jobs vanish, indexes point at nothing. That must be loud.
 */
import type { Redis } from 'ioredis';

export interface MemoryPolicyReport {
  policy: string;
  ok: boolean;
}

/** Reads `maxmemory_policy` from INFO (CONFIG GET is often disabled on managed Redis). */
export async function readMemoryPolicy(redis: Redis): Promise<MemoryPolicyReport> {
  const info = await redis.info('memory');
  const match = /^maxmemory_policy:(\S+)/m.exec(info);
  const policy = match?.[1] ?? 'unknown';
  return { policy, ok: policy === 'noeviction' };
}

/** The warning printed when the policy is not `noeviction`. */
export function memoryPolicyWarning(policy: string): string {
  return [
    '',
    '!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!',
    `!! @ojskit/redis: Redis maxmemory-policy is '${policy}', not 'noeviction'.`,
    '!! When memory runs out Redis will EVICT job data: jobs and their indexes can be',
    '!! lost silently. Run Redis with `maxmemory-policy noeviction` for a job queue:',
    '!!   redis-cli CONFIG SET maxmemory-policy noeviction   (and persist it in redis.conf)',
    '!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!',
    '',
  ].join('\n');
}
