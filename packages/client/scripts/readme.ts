/**
 * Keeps the README's code blocks identical to the runnable examples they come from.
 * A block is introduced by `<!-- snippet: examples/file.ts#region -->` and the generator replaces the fenced
 * code after it with that region (dedented). `tsx scripts/readme.ts` rewrites README.md; `--check` fails
 * when it is stale. The README test runs the check and every example.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const PACKAGE_DIR = join(dirname(fileURLToPath(import.meta.url)), '..');
const MARKER = /<!-- snippet: ([\w./-]+)#([\w-]+) -->\n```ts\n[\s\S]*?```/g;

/** The lines between `// #region name` and `// #endregion name`, with their common indentation removed. */
export function extractRegion(source: string, region: string, file = '(source)'): string {
  const lines = source.split('\n');
  const start = lines.findIndex((l) => l.trim() === `// #region ${region}`);
  const end = lines.findIndex((l, i) => i > start && l.trim().startsWith(`// #endregion`) && [`// #endregion ${region}`, '// #endregion'].includes(l.trim()));
  if (start < 0 || end < 0) throw new Error(`${file}: no region '${region}'`);
  const body = lines.slice(start + 1, end).filter((l) => !/^\s*\/\/ #(end)?region\b/.test(l));
  const indent = Math.min(...body.filter((l) => l.trim()).map((l) => l.length - l.trimStart().length));
  return body.map((l) => l.slice(indent)).join('\n');
}

/** The README with every snippet block refreshed from its example. */
export function renderReadme(readme: string, readExample: (path: string) => string = (p) => readFileSync(join(PACKAGE_DIR, p), 'utf8')): string {
  return readme.replace(MARKER, (_block, path: string, region: string) => {
    const code = extractRegion(readExample(path), region, path);
    return `<!-- snippet: ${path}#${region} -->\n\`\`\`ts\n${code}\n\`\`\``;
  });
}

/** Every `path#region` the README includes. */
export function snippetsOf(readme: string): Array<{ path: string; region: string }> {
  return [...readme.matchAll(MARKER)].map((m) => ({ path: m[1]!, region: m[2]! }));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const path = join(PACKAGE_DIR, 'README.md');
  const current = readFileSync(path, 'utf8');
  const next = renderReadme(current);
  if (process.argv.includes('--check')) {
    if (next !== current) {
      console.error('README.md is stale: run `pnpm --filter @ojskit/client readme`.');
      process.exit(1);
    }
  } else if (next !== current) {
    writeFileSync(path, next);
    console.log('README.md updated.');
  }
}
