/** The enqueue form's args field: a JSON array, or the message to show while it is not one. */
export function parseArgs(text: string): { args: unknown[] } | { error: string } {
  try {
    const value = JSON.parse(text) as unknown;
    return Array.isArray(value) ? { args: value } : { error: 'Args must be a JSON array, e.g. [1, "two"].' };
  } catch (e) {
    return { error: `Not valid JSON: ${(e as Error).message}` };
  }
}
