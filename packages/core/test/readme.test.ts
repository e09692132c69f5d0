/** The README's first example runs as written, and prints what its comments say. */
import { readFileSync } from 'node:fs';
import { format } from 'node:util';
import { describe, expect, it, vi } from 'vitest';
import * as driver from '../src/entries/driver.js';
import * as formats from '../src/entries/formats.js';
import * as lifecycle from '../src/entries/lifecycle.js';
import * as schemas from '../src/entries/schemas.js';
import * as testing from '../src/entries/testing.js';
import * as root from '../src/index.js';

/** What each import specifier the README may use resolves to: the package's `exports` entries. */
const ENTRIES: Record<string, Record<string, unknown>> = {
  '@ojskit/core': root,
  '@ojskit/core/driver': driver,
  '@ojskit/core/formats': formats,
  '@ojskit/core/lifecycle': lifecycle,
  '@ojskit/core/schemas': schemas,
  '@ojskit/core/testing': testing,
};

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const example = /```ts\n([\s\S]*?)```/.exec(readme)![1]!;

describe('README', () => {
  it('runs the example, each console.log printing what its comment says', () => {
    const lines = example.split('\n');
    const names: string[] = [];
    const values: unknown[] = [];
    for (const line of lines.filter((l) => l.startsWith('import '))) {
      const [, list, specifier] = /^import \{ (.*) \} from '([^']+)';$/.exec(line)!;
      const entry = ENTRIES[specifier!];
      expect(entry, `${specifier} is one of the package's entry points`).toBeDefined();
      for (const name of list!.split(', ')) {
        expect(entry![name], `${specifier} exports ${name}`).toBeDefined();
        names.push(name);
        values.push(entry![name]);
      }
    }
    const expected = lines.filter((line) => line.includes('console.log(')).map((line) => line.slice(line.lastIndexOf('// ') + 3));
    const printed: string[] = [];
    const log = vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void printed.push(format(...args)));
    try {
      const body = lines.filter((line) => !line.startsWith('import ')).join('\n');
      new Function(...names, body)(...values);
    } finally {
      log.mockRestore();
    }
    expect(printed).toEqual(expected);
  });
});

describe('README, for adapter authors', () => {
  const section = readme.slice(readme.indexOf('## For adapter authors'), readme.indexOf('\n## ', readme.indexOf('## For adapter authors') + 1));

  it('names every state set, role and effect core exports', () => {
    for (const name of [...Object.keys(lifecycle.STATE_SETS), ...Object.keys(lifecycle.STATE_ROLES), ...Object.keys(lifecycle.EFFECTS)]) {
      expect(section, name).toContain(`\`${name}\``);
    }
  });

  // Loading the TypeScript compiler (9 MB of JavaScript) is seconds of CPU: with other packages' tests running
  // beside it on two cores, more than the default 20 s. The time is the load's, not the example's.
  it('runs the example: the expiry effect applied to a job, and the SQL guard', async () => {
    const ts = (await import('typescript')).default;
    const source = /```ts\n([\s\S]*?)```/.exec(section)![1]!.replace(/^import .*\n/m, '');
    const js = ts.transpileModule(`${source}\nreturn { expire, sql };`, { compilerOptions: { target: ts.ScriptTarget.ES2022 } }).outputText;
    const { expire, sql } = new Function('EFFECTS', 'STATE_SETS', js)(lifecycle.EFFECTS, lifecycle.STATE_SETS);
    const job: Record<string, unknown> = { state: 'available' };
    const x: Record<string, unknown> = {};
    expire(job, x, 5, '1970-01-01T00:00:00.005Z');
    expect(job).toEqual({ state: 'discarded', discarded_at: '1970-01-01T00:00:00.005Z', expired_at: '1970-01-01T00:00:00.005Z' });
    expect(x).toEqual({ finishedAt: 5 });
    expect(sql).toBe("UPDATE jobs SET state = 'discarded' WHERE state IN ('scheduled', 'available', 'retryable')");
  }, 120_000);
});

describe('README, the driver primitives', () => {
  const start = readme.indexOf('## For adapter authors: the driver primitives');
  const section = readme.slice(start, readme.indexOf('\n## ', start + 1));

  it('lists every member of the Driver interface, and counts them right', () => {
    // The Driver interface and the interfaces it extends (the queue configuration lives in driver/admin.ts).
    const interfaceBody = (file: string, name: string): string => {
      const source = readFileSync(new URL(`../src/driver/${file}`, import.meta.url), 'utf8');
      const body = source.slice(source.indexOf(`export interface ${name} `));
      return body.slice(0, body.indexOf('\n}\n'));
    };
    const block = interfaceBody('driver.ts', 'Driver') + interfaceBody('admin.ts', 'DriverQueueConfig');
    const methods = [...block.matchAll(/^ {2}([a-zA-Z]+)\??\(/gm)].map((m) => m[1]!);
    const properties = [...block.matchAll(/^ {2}readonly ([a-zA-Z]+)\??:/gm)].map((m) => m[1]!);
    for (const name of methods) {
      const family = /^(queue|worker|cron|workflow|lease)/.exec(name)?.[1];
      expect(section.includes(`\`${name}\``) || (family !== undefined && section.includes(`\`${family}*\``)), name).toBe(true);
    }
    expect(section).toContain(`${methods.length} methods and ${properties.length} properties`);
  });

  it('runs the example: each item becomes the compare-and-set core builds from EFFECTS', async () => {
    const ts = (await import('typescript')).default;
    const source = /```ts\n([\s\S]*?)```/.exec(section)![1]!.replace(/^import [\s\S]*?;\n/m, '');
    const js = ts.transpileModule(`${source}\nreturn { jobCompleteMany, jobFailMany };`, { compilerOptions: { target: ts.ScriptTarget.ES2022 } }).outputText;
    const applyOps = async (ops: unknown[]) => ops;
    const { jobCompleteMany, jobFailMany } = new Function('completionOp', 'failureOp', 'applyOps', js)(driver.completionOp, driver.failureOp, applyOps);
    const [ack] = await jobCompleteMany({ jobs: [{ id: 'a', attempt: 1, result: 7 }], now: 5, nowIso: '1970-01-01T00:00:00.005Z' });
    expect(ack).toMatchObject({
      id: 'a',
      from: driver.EFFECTS.ack.from,
      to: driver.EFFECTS.ack.to,
      expect: { attempt: 1 },
      set: { completed_at: '1970-01-01T00:00:00.005Z', result: 7 },
      returning: 'job',
    });
    const [retry] = await jobFailMany({ jobs: [{ id: 'b', outcome: 'retry', attempt: 2, retryDelayMs: 10 }], now: 5, nowIso: '1970-01-01T00:00:00.005Z' });
    expect(retry).toMatchObject({
      id: 'b',
      to: driver.EFFECTS.retry.to,
      expect: { attempt: 2 },
      set: { retry_delay_ms: 10, next_attempt_at: '1970-01-01T00:00:00.015Z' },
      x: { dueAt: 15 },
    });
  });
});
