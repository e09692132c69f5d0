import { readFileSync } from 'node:fs';
import { Engine } from '@ojskit/core';
import { describe, expect, it, vi } from 'vitest';
import { MemoryDriver } from '../src/index.js';

/** The first ```ts block of the README, with its imports replaced by the same bindings. */
function readmeExample(): string {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  const block = /```ts\n([\s\S]*?)```/.exec(readme)?.[1];
  if (block === undefined) throw new Error('README has no ts example');
  const imports = block.split('\n').filter((line) => line.startsWith('import '));
  expect(imports).toEqual(["import { Engine } from '@ojskit/core';", "import { MemoryDriver } from '@ojskit/memory';"]);
  return block
    .split('\n')
    .filter((line) => !line.startsWith('import '))
    .join('\n');
}

describe('README', () => {
  it('runs the example as written', async () => {
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor as new (...args: string[]) => (...args: unknown[]) => Promise<void>;
    await new AsyncFunction('Engine', 'MemoryDriver', readmeExample())(Engine, MemoryDriver);
    expect(log).toHaveBeenCalledWith('completed');
    log.mockRestore();
  });
});
