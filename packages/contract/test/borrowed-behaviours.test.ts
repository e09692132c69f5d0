/** Every behaviour the universal model calls built in names contract cases that exist, so its claim is tested on every backend. */
import { BORROWED_BEHAVIOURS, UNIVERSAL_MODEL } from '@ojskit/core/lifecycle';
import { describe, expect, it } from 'vitest';
import type { ContractSubject } from '../src/subject.js';
import type { Suite } from '../src/harness.js';
import { CASE_REGISTRATIONS } from '../src/index.js';

/** The ids every case file registers, collected without running anything. */
function registeredCaseIds(): Set<string> {
  const ids = new Set<string>();
  const suite: Suite = {
    options: { name: 'ids', create: (): Promise<ContractSubject> => Promise.reject(new Error('ids only')) },
    group: (_title, body) => body(),
    test: (id) => void ids.add(id),
    raw: (id) => void ids.add(id),
  };
  for (const register of CASE_REGISTRATIONS) register(suite);
  return ids;
}

describe('BORROWED_BEHAVIOURS', () => {
  const ids = registeredCaseIds();

  it('collects the registered case ids (the collector sees the suite)', () => {
    expect(ids.size).toBeGreaterThan(200);
    expect(ids).toContain('unique.business-key-active');
  });

  it.each(BORROWED_BEHAVIOURS.map((b) => [b.id, b] as const))('%s: built-in behaviours cite existing cases, declined ones say why', (_id, behaviour) => {
    if (behaviour.answer === 'built-in') {
      expect(behaviour.proof.length).toBeGreaterThan(0);
      for (const proof of behaviour.proof) expect(ids, `${behaviour.id} cites ${proof}`).toContain(proof);
    } else {
      expect(behaviour.why.length).toBeGreaterThan(40);
    }
    for (const system of behaviour.systems) expect(UNIVERSAL_MODEL.map((s) => s.id)).toContain(system);
  });
});
