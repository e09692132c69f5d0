/**
 * `turbo.json` builds this package after `@ojskit/core` alone: its other workspace dependencies are dev ones
 * (tests, examples, bench), and `@ojskit/contract` depends on this package, so following them would make a
 * build cycle. That holds only while the sources import no other workspace package: this test says so.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = join(import.meta.dirname, '..', 'src');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sources(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );
}

describe('build dependencies', () => {
  it("src imports no workspace package but @ojskit/core (turbo.json's build depends on core's alone)", () => {
    const turbo = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'turbo.json'), 'utf8')) as { tasks: { build: { dependsOn: string[] } } };
    expect(turbo.tasks.build.dependsOn).toEqual(['@ojskit/core#build']);
    const files = sources(SRC);
    expect(files.length).toBeGreaterThan(10);
    const imported = new Set(files.flatMap((file) => [...readFileSync(file, 'utf8').matchAll(/from '(@ojskit\/[\w-]+)/g)].map((m) => m[1]!)));
    expect([...imported]).toEqual(['@ojskit/core']);
  });
});
