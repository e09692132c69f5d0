/** Matching a failure against `non_retryable_errors`: exact, `prefix.*`, or an anchored regular expression. */

/**
 * True when any of the error's candidates (type, code, `details.error_class`) matches an entry.
 * Never matches on the message. Case-sensitive.
 * @example matchesNonRetryable(['auth.*'], ['auth.token_expired']) // true
 */
export function matchesNonRetryable(entries: readonly string[], candidates: readonly (string | undefined)[]): boolean {
  const values = candidates.filter((c): c is string => typeof c === 'string' && c.length > 0);
  return entries.some((entry) => values.some((value) => entryMatches(entry, value)));
}

function entryMatches(entry: string, value: string): boolean {
  if (entry === value) return true;
  if (entry.endsWith('.*') && value.startsWith(entry.slice(0, -1))) return true;
  try {
    return new RegExp(`^(?:${entry})$`).test(value);
  } catch {
    return false;
  }
}
