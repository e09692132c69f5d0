/**
 * Test support: a fixture script run in a child Node process (through tsx, on the workspace's sources), whose
 * stdout lines the test reads, and which the test can SIGKILL: a real crash, no shutdown code runs.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { waitUntil } from './faults.js';

export class ChildScript {
  /** Every line the child printed on stdout, in order. */
  readonly lines: string[] = [];
  private exitCode: number | null | undefined;
  private readonly exited: Promise<void>;

  private constructor(private readonly child: ChildProcess) {
    createInterface({ input: child.stdout! }).on('line', (line) => this.lines.push(line));
    this.exited = new Promise((resolve) =>
      child.once('exit', (code) => {
        this.exitCode = code;
        resolve();
      }),
    );
  }

  /** Runs `test/fixtures/<name>.ts` with `env` added to this process's environment. */
  static run(name: string, env: Record<string, string>): ChildScript {
    const script = fileURLToPath(new URL(`../fixtures/${name}.ts`, import.meta.url));
    const child = spawn(process.execPath, ['--conditions=@ojskit/source', '--import', 'tsx', script], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    return new ChildScript(child);
  }

  /** Lines starting with `word ` (or equal to `word`), each split on spaces after it. */
  said(word: string): string[][] {
    return this.lines.filter((l) => l === word || l.startsWith(`${word} `)).map((l) => l.split(' ').slice(1));
  }

  /** Waits until the child printed `count` lines starting with `word`; fails early if it exits. */
  async waitFor(word: string, count = 1, timeoutMs = 120_000): Promise<string[][]> {
    await waitUntil(
      `the child to print ${count} × "${word}"`,
      () => {
        if (this.exitCode !== undefined) throw new Error(`the child exited with ${this.exitCode}; it printed: ${this.lines.join(' | ')}`);
        return this.said(word).length >= count;
      },
      timeoutMs,
      20,
    );
    return this.said(word);
  }

  /** SIGKILLs the child and waits for it to be gone. */
  async kill(): Promise<void> {
    if (this.exitCode === undefined) this.child.kill('SIGKILL');
    await this.exited;
  }
}
