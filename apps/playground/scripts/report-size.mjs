// Prints the built bundle's size (raw and gzip) per file and in total: the number the README promises to keep small.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { gzipSync } from 'node:zlib';

const dist = new URL('../dist/', import.meta.url).pathname;
const files = [];
const walk = (dir) => {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path);
    else files.push(path);
  }
};
walk(dist);
let raw = 0;
let gz = 0;
for (const path of files.sort()) {
  const bytes = readFileSync(path);
  const zipped = gzipSync(bytes).length;
  raw += bytes.length;
  gz += zipped;
  console.log(`  ${relative(dist, path).padEnd(40)} ${(bytes.length / 1024).toFixed(1).padStart(8)} kB  gzip ${(zipped / 1024).toFixed(1).padStart(7)} kB`);
}
console.log(`playground bundle: ${(raw / 1024).toFixed(1)} kB, ${(gz / 1024).toFixed(1)} kB gzip (${files.length} files)`);
