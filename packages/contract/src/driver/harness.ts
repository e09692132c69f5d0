/** Registration of the driver-level cases: stable ids, written skip reasons, one fresh subject per case. */
import { describe, it } from 'vitest';
import { assertSkipReasons } from '../harness.js';
import { DriverCaseContext } from './context.js';
import type { DriverContractOptions } from './subject.js';

/** What driver case files register against. */
export interface DriverSuite {
  /** A describe block. */
  group(title: string, body: () => void): void;
  /** A case with a stable id (`area.what`), run against a fresh subject. */
  test(id: string, title: string, fn: (t: DriverCaseContext) => Promise<void>, options?: { timeoutMs?: number }): void;
}

/** A driver case file's entry point. */
export type DriverCaseRegistration = (suite: DriverSuite) => void;

/**
 * Registers every driver case under one describe block. A skipped case shows as skipped with its reason in
 * its title, and the `[driver.skips]` case prints the list and fails on ids that name no case.
 */
export function registerDriverCases(options: DriverContractOptions, registrations: readonly DriverCaseRegistration[]): void {
  const { name, create } = options;
  const skip = options.skip ?? {};
  assertSkipReasons(name, skip);
  const seen = new Set<string>();
  const skipped: Array<[string, string]> = [];

  const suite: DriverSuite = {
    group: (title, body) => describe(title, body),
    test(id, title, fn, caseOptions) {
      if (seen.has(id)) throw new Error(`[ojs driver contract] duplicate case id '${id}'`);
      seen.add(id);
      const label = `[${id}] ${title}`;
      const reason = skip[id];
      if (reason !== undefined) {
        skipped.push([id, reason]);
        it.skip(`${label} (skipped: ${reason})`, () => {});
        return;
      }
      it(
        label,
        async () => {
          const subject = await create();
          try {
            await fn(new DriverCaseContext(subject));
          } finally {
            await subject.close();
          }
        },
        caseOptions?.timeoutMs,
      );
    },
  };

  describe(`OJS driver contract: ${name}`, () => {
    for (const register of registrations) register(suite);

    it('[driver.skips] every skipped id names an existing case', () => {
      if (skipped.length > 0) {
        const lines = skipped.map(([id, reason]) => `  - ${id}: ${reason}`).join('\n');
        console.info(`[ojs driver contract:${name}] ${skipped.length} case(s) skipped:\n${lines}`);
      }
      const unknown = Object.keys(skip).filter((id) => !seen.has(id));
      if (unknown.length > 0) throw new Error(`skip names case ids that do not exist: ${unknown.join(', ')}`);
    });
  });
}
