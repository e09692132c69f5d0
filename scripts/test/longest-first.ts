/**
 * A vitest sequencer that starts the named test files first. Without results from an earlier run (a clean
 * clone, CI) vitest starts the largest files first, but the longest files here are the smallest: a few lines
 * that run a shared suite (the backend contract, the SDK contracts, the chaos run) against one store. Started
 * last, each ran alone at the end of its package's run while the other worker sat idle. Once vitest has
 * timings of its own (a second local run) its order, longest first, is kept among the unnamed files.
 */
import { BaseSequencer, type TestSequencerConstructor, type TestSpecification } from 'vitest/node';

/**
 * The sequencer class for `test.sequence.sequencer`: `files` (paths relative to the package, longest first)
 * run before every other file, in the order given.
 */
export function longestFirst(files: readonly string[]): TestSequencerConstructor {
  return class LongestFirst extends BaseSequencer {
    override async sort(specs: TestSpecification[]): Promise<TestSpecification[]> {
      const sorted = await super.sort(specs);
      const rank = (spec: TestSpecification): number => {
        const index = files.findIndex((file) => spec.moduleId.endsWith(`/${file}`));
        return index < 0 ? files.length : index;
      };
      // Array.prototype.sort is stable: files not named keep vitest's order.
      return sorted.sort((a, b) => rank(a) - rank(b));
    }
  };
}
