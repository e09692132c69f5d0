/** Case registration: ids, written skip reasons, one fresh subject per case. */
import { describe, it } from 'vitest';
import { CaseContext } from './context.js';
import type { BackendContractOptions, ContractSubject } from './subject.js';

/** The body of one contract case. */
export type CaseFn = (t: CaseContext) => Promise<void>;

export interface CaseOptions {
  /** Per-case timeout in ms (default: the runner's). */
  timeoutMs?: number;
}

/** What case files register against. */
export interface Suite {
  /** The options the suite was registered with. */
  readonly options: BackendContractOptions;
  /** A describe block. */
  group(title: string, body: () => void): void;
  /** A case with a stable id (`area.what`), run against a fresh subject. */
  test(id: string, title: string, fn: CaseFn, options?: CaseOptions): void;
  /** A case that manages subjects itself (the model-based property creates one per property). */
  raw(id: string, title: string, fn: (create: () => Promise<ContractSubject>) => Promise<void>, options?: CaseOptions): void;
}

/** A case file's entry point. */
export type CaseRegistration = (suite: Suite) => void;

/** Throws unless every skip carries a non-empty written reason. */
export function assertSkipReasons(name: string, skip: Record<string, unknown>): void {
  for (const [id, reason] of Object.entries(skip)) {
    if (typeof reason !== 'string' || reason.trim().length === 0) {
      throw new Error(`[ojs contract:${name}] skip '${id}' has no written reason; every skipped case needs one.`);
    }
  }
}

/**
 * Registers every case under one describe block. Skips carry their reason into the test title and into a
 * report the `[contract.skips]` case prints, so a skipped case is never mistaken for a passing one.
 */
export function registerCases(options: BackendContractOptions, registrations: readonly CaseRegistration[]): void {
  const { name, create } = options;
  const skip = options.skip ?? {};
  assertSkipReasons(name, skip);
  const seen = new Set<string>();
  const skipped: Array<[string, string]> = [];
  const part = options.part;
  if (part !== undefined && !(Number.isInteger(part.of) && part.of >= 1 && Number.isInteger(part.index) && part.index >= 1 && part.index <= part.of)) {
    throw new Error(`[ojs contract:${name}] part ${JSON.stringify(part)} is not one of 1..of`);
  }

  /** Whether the `n`-th (0-based) top-level group, or case outside any group, belongs to this file's part. */
  const inPart = (n: number): boolean => part === undefined || n % part.of === part.index - 1;
  // Parts split by top-level group (a group left without cases would fail the run as an empty suite): a group of
  // another part still runs its body, recording its case ids only.
  let depth = 0;
  let units = 0;
  let recordingOnly = false;

  /** Records a case of another part (registered by that part's file); true when `id` is one. */
  const outOfPart = (id: string): boolean => {
    if (!recordingOnly && (depth > 0 || inPart(units++))) return false;
    if (seen.has(id)) throw new Error(`[ojs contract] duplicate case id '${id}'`);
    seen.add(id);
    return true;
  };

  const claimId = (id: string): string | undefined => {
    if (seen.has(id)) throw new Error(`[ojs contract] duplicate case id '${id}'`);
    seen.add(id);
    const reason = skip[id];
    if (reason !== undefined) skipped.push([id, reason]);
    return reason;
  };

  const suite: Suite = {
    options,
    group: (title, body) => {
      if (recordingOnly || depth > 0 || inPart(units++)) {
        if (recordingOnly) return body();
        // vitest runs a describe's body after the describe call returns: the depth is counted inside it
        describe(title, () => {
          depth++;
          try {
            body();
          } finally {
            depth--;
          }
        });
        return;
      }
      recordingOnly = true;
      try {
        body();
      } finally {
        recordingOnly = false;
      }
    },
    test(id, title, fn, caseOptions) {
      if (outOfPart(id)) return;
      const reason = claimId(id);
      const label = `[${id}] ${title}`;
      if (reason !== undefined) {
        it.skip(`${label} (skipped: ${reason})`, () => {});
        return;
      }
      it(
        label,
        async () => {
          const subject = await create();
          try {
            await fn(new CaseContext(subject));
          } finally {
            await subject.close();
          }
        },
        caseOptions?.timeoutMs,
      );
    },
    raw(id, title, fn, caseOptions) {
      if (outOfPart(id)) return;
      const reason = claimId(id);
      const label = `[${id}] ${title}`;
      if (reason !== undefined) {
        it.skip(`${label} (skipped: ${reason})`, () => {});
        return;
      }
      it(label, () => fn(create), caseOptions?.timeoutMs);
    },
  };

  describe(`OJS backend contract: ${name}`, () => {
    for (const register of registrations) register(suite);

    // Nested describe blocks are collected after this callback returns, so the complete set of case ids is
    // only known once tests run: check and report here.
    it('[contract.skips] every skipped id names an existing case', () => {
      if (skipped.length > 0) {
        const lines = skipped.map(([id, reason]) => `  - ${id}: ${reason}`).join('\n');
        console.info(`[ojs contract:${name}] ${skipped.length} case(s) skipped:\n${lines}`);
      }
      const unknown = Object.keys(skip).filter((id) => !seen.has(id));
      if (unknown.length > 0) throw new Error(`skip names case ids that do not exist: ${unknown.join(', ')}`);
    });
  });
}
