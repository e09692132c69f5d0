/**
 * Vitest global setup: the run gets a private temporary directory (TMPDIR, which os.tmpdir() and the test
 * processes inherit), and the run fails if a test left one of its own folders (`ojs*`) in it: tests clean up
 * after themselves. Tools' caches (tsx keeps one there) are not the tests' to remove.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'ojskit-test-run-'));
  process.env['TMPDIR'] = dir;
  return () => {
    const left = readdirSync(dir).filter((name) => name.startsWith('ojs'));
    rmSync(dir, { recursive: true, force: true });
    if (left.length > 0) {
      // A throw here is only printed by Vitest; the exit code is what CI sees.
      process.exitCode = 1;
      throw new Error(`tests left temporary folders behind in the system temp directory: ${left.join(', ')}`);
    }
  };
}
