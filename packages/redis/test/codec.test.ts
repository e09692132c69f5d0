/** codec.ts without Redis: a stored job decodes to the envelope it was, keys in envelope order, whatever it holds. */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { StoredJob } from '@ojskit/core/driver';
import { decodeClaimedJobs, decodeJob, encodeStoredJob, ENVELOPE_ORDER } from '../src/codec.js';

const T = '2026-11-26T04:19:32.192Z';
const BASE = {
  specversion: '1.0',
  id: '019ac0de-0000-7000-8000-000000000001',
  type: 'mail.send',
  queue: 'mail',
  args: [1, { a: -0 }],
  meta: { trace: 'x' },
  priority: 2,
  state: 'active',
  attempt: 1,
  max_attempts: 3,
  created_at: T,
  enqueued_at: T,
};
/** Envelope attributes a job may or may not hold, each stored outside '@e' or in it. */
const OPTIONAL: Record<string, unknown> = {
  scheduled_at: T,
  started_at: T,
  result: { ok: true },
  error: { code: 'handler_error', message: 'no' },
  errors: [{ code: 'x' }],
  retry_delay_ms: 1500,
  next_attempt_at: T,
  tags: ['a', 'b'],
  worker_id: 'host|pid|1',
  workflow_id: 'wf-1',
  x_custom: { kept: true },
};
/** A key's place in the envelope order, unknown attributes after every known one. */
const rank = (key: string) => (ENVELOPE_ORDER.includes(key) ? ENVELOPE_ORDER.indexOf(key) : ENVELOPE_ORDER.length);

/** Every subset of OPTIONAL on top of BASE: 2 048 jobs, more envelope shapes than the decoder builds makers for. */
function* jobs(): Generator<Record<string, unknown>> {
  const keys = Object.keys(OPTIONAL);
  for (let mask = 0; mask < 1 << keys.length; mask++) {
    const job: Record<string, unknown> = { ...BASE };
    keys.forEach((key, bit) => {
      if (mask & (1 << bit)) job[key] = OPTIONAL[key];
    });
    yield job;
  }
}

function stored(job: Record<string, unknown>): string[] {
  return encodeStoredJob({ job, x: { visibilityMs: 30_000 } } as unknown as StoredJob);
}

describe('codec', () => {
  it('decodes every shape of envelope to the job it was, keys in envelope order', () => {
    let n = 0;
    for (const job of jobs()) {
      const decoded = decodeJob(stored(job)) as unknown as Record<string, unknown>;
      expect(decoded).toStrictEqual(job);
      expect(Object.is((decoded.args as [number, { a: number }])[1].a, -0)).toBe(true);
      const keys = Object.keys(decoded);
      expect(keys).toEqual([...keys].sort((a, b) => rank(a) - rank(b)));
      n++;
    }
    expect(n).toBe(2048);
  });

  it("decodes a claim's jobs that share an '@h' (sent once), and the one after that does not", () => {
    const a = { ...BASE, id: 'a', worker_id: 'w' };
    const b = { ...BASE, id: 'b', worker_id: 'w' };
    const c = { ...BASE, id: 'c', attempt: 2, worker_id: 'w', result: 5 };
    const flat: Array<string | number | null> = [];
    for (const job of [a, b, c]) {
      const fields = stored(job);
      const at = (f: string) => fields[fields.indexOf(f) + 1]!;
      const own: string[] = [];
      for (let i = 0; i < fields.length; i += 2) if (!fields[i]!.startsWith('@')) own.push(fields[i]!, fields[i + 1]!);
      // the claim sends 0 for an '@h' equal to the previous job's
      flat.push(job === b ? 0 : at('@h'), at('@e'), own.length / 2, ...own);
    }
    const hots: string[] = [];
    expect(decodeClaimedJobs(flat, (_, hot) => hots.push(hot))).toStrictEqual([a, b, c]);
    expect(hots[1]).toBe(hots[0]);
    expect(hots[2]).not.toBe(hots[0]);
  });

  it('decodes where code generation is disallowed (a locked-down runtime), key by key', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ojskit-codec-'));
    const script = join(dir, 'decode.mjs');
    const codec = fileURLToPath(new URL('../src/codec.ts', import.meta.url));
    writeFileSync(
      script,
      `const { decodeJob, encodeStoredJob } = await import(${JSON.stringify(codec)});
const job = ${JSON.stringify({ ...BASE, worker_id: 'w' })};
process.stdout.write(JSON.stringify(decodeJob(encodeStoredJob({ job, x: {} }))));`,
    );
    let out: string;
    try {
      out = execFileSync(process.execPath, ['--disallow-code-generation-from-strings', '--import', 'tsx', script], {
        cwd: fileURLToPath(new URL('..', import.meta.url)),
        encoding: 'utf8',
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    expect(JSON.parse(out)).toEqual(JSON.parse(JSON.stringify({ ...BASE, worker_id: 'w' })));
  });
});
