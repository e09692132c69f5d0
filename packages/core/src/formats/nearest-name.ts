/** "Did you mean …?": the accepted name closest to a misspelt one, for error messages. */

/** Optimal-string-alignment distance: edits, counting a swap of two neighbours (`qeueu` → `queue`) as one. */
function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[] = new Array<number>(rows * cols).fill(0);
  for (let i = 0; i < rows; i++) d[i * cols] = i;
  for (let j = 0; j < cols; j++) d[j] = j;
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[(i - 1) * cols + j]! + 1, d[i * cols + j - 1]! + 1, d[(i - 1) * cols + j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, d[(i - 2) * cols + j - 2]! + 1);
      d[i * cols + j] = best;
    }
  }
  return d[rows * cols - 1]!;
}

/**
 * The name in `names` closest to `input`, or undefined when none is close: a few edits away (two, or one per three
 * characters for longer names; case ignored), or a name that starts with the input (`delay` → `delay_until`) or that the
 * input starts with.
 * @example nearestName('qeueu', ['queue', 'priority']) // 'queue'
 */
export function nearestName(input: string, names: Iterable<string>): string | undefined {
  const wanted = input.toLowerCase().replace(/^-+/, '');
  let best: string | undefined;
  let bestScore = Infinity;
  for (const name of names) {
    const candidate = name.toLowerCase().replace(/^-+/, '');
    const distance = editDistance(wanted, candidate);
    const longer = Math.max(wanted.length, candidate.length);
    const limit = longer < 4 ? 1 : Math.max(2, Math.floor(longer / 3));
    const prefix = wanted.length >= 3 && (candidate.startsWith(wanted) || wanted.startsWith(candidate));
    if (distance > limit && !prefix) continue;
    // A shortened name (`--cors` for `--cors-origin`) is taken before a respelling; among equals the first
    // name given wins.
    const score = prefix ? 0.5 + Math.abs(candidate.length - wanted.length) / 1000 : distance;
    if (score < bestScore) {
      best = name;
      bestScore = score;
    }
  }
  return best;
}
