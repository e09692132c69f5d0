/** The README's runnable example is the file examples/quickstart.ts, and it runs. */
import { readFileSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';

const read = (path: string): string => readFileSync(new URL(path, import.meta.url), 'utf8');

describe('README', () => {
  it('shows examples/quickstart.ts verbatim', () => {
    const readme = read('../README.md');
    const marker = '<!-- example: examples/quickstart.ts -->';
    expect(readme).toContain(marker);
    const block = /```ts\n([\s\S]*?)```/.exec(readme.slice(readme.indexOf(marker)))![1];
    expect(block).toBe(read('../examples/quickstart.ts'));
  });

  it('runs the example: a job enqueued over HTTP is processed by a worker over HTTP', async () => {
    const logs: unknown[][] = [];
    const spy = vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => {
      logs.push(args);
    });
    process.env['PORT'] = '0';
    try {
      await import('../examples/quickstart.js');
    } finally {
      spy.mockRestore();
      delete process.env['PORT'];
    }
    expect(logs).toContainEqual(['completed', { sentTo: 'ada@example.com' }]);
  });
});
