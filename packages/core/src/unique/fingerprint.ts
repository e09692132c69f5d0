/** Unique-job fingerprints: SHA-256 of canonical JSON over the policy's dimensions. */
import { sha256 } from '@noble/hashes/sha2';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils';
import type { UniquePolicy } from './policy.js';

/**
 * JSON with keys sorted at every depth, no whitespace, strings NFC-normalised.
 * @example canonicalJson({ b: 1, a: 'x' }) // '{"a":"x","b":1}'
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    return typeof value === 'string' ? JSON.stringify(value.normalize('NFC')) : JSON.stringify(value ?? null);
  }
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k.normalize('NFC'))}:${canonicalJson(v)}`).join(',')}}`;
}

function pick(source: unknown, keys: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (source && typeof source === 'object' && !Array.isArray(source)) {
    for (const k of keys) if (k in (source as Record<string, unknown>)) out[k] = (source as Record<string, unknown>)[k];
  }
  return out;
}

/** The fingerprint of a job under a unique policy: hex SHA-256. */
export function uniqueFingerprint(job: { type: string; queue: string; args: unknown[]; meta: Record<string, unknown> }, policy: UniquePolicy): string {
  const subject: Record<string, unknown> = { type: job.type };
  if (policy.dimensions.includes('queue')) subject.queue = job.queue;
  if (policy.dimensions.includes('args')) {
    if (policy.argsKeys) {
      const source = job.args.length === 1 ? job.args[0] : job.args.find((a) => a && typeof a === 'object' && !Array.isArray(a));
      subject.args = pick(source, policy.argsKeys);
    } else {
      subject.args = job.args;
    }
  }
  if (policy.dimensions.includes('meta')) subject.meta = pick(job.meta, policy.metaKeys ?? []);
  return bytesToHex(sha256(utf8ToBytes(canonicalJson(subject))));
}
