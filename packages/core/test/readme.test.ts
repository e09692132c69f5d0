/** The README's first example runs as written, and prints what its comments say. */
import { readFileSync } from 'node:fs';
import { format } from 'node:util';
import { describe, expect, it, vi } from 'vitest';
import * as core from '../src/index.js';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const example = /```ts\n([\s\S]*?)```/.exec(readme)![1]!;

describe('README', () => {
  it('runs the example, each console.log printing what its comment says', () => {
    const lines = example.split('\n');
    const imports = lines.filter((line) => line.startsWith('import '));
    expect(imports).toHaveLength(1);
    const names = /import \{ (.*) \} from '@ojskit\/core';/.exec(imports[0]!)![1]!.split(', ');
    const expected = lines.filter((line) => line.includes('console.log(')).map((line) => line.slice(line.lastIndexOf('// ') + 3));
    const printed: string[] = [];
    const log = vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void printed.push(format(...args)));
    try {
      const body = lines.filter((line) => !line.startsWith('import ')).join('\n');
      new Function(...names, body)(...names.map((name) => (core as Record<string, unknown>)[name]));
    } finally {
      log.mockRestore();
    }
    expect(printed).toEqual(expected);
  });
});
