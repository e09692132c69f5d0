/** Which methods each route path accepts, so a known path with the wrong method gets `405` + `Allow`, not `404`. */

interface Entry {
  pattern: RegExp;
  literal: boolean;
  methods: Set<string>;
}

function compile(path: string): { pattern: RegExp; literal: boolean } {
  const literal = !path.includes(':');
  const source = path
    .split('/')
    .map((segment) => (segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('/');
  return { pattern: new RegExp(`^${source}/?$`), literal };
}

export class MethodTable {
  private readonly entries = new Map<string, Entry>();

  /** Records that `method` is served on `path` (Hono syntax, `:param`). */
  add(method: string, path: string): void {
    let entry = this.entries.get(path);
    if (!entry) {
      entry = { ...compile(path), methods: new Set() };
      this.entries.set(path, entry);
    }
    entry.methods.add(method.toUpperCase());
  }

  /**
   * Methods served on `path`, for the `Allow` header. A literal path wins over patterns (`/jobs/batch` is
   * POST only, although `/jobs/:id` would match it); with `literalOnly`, only literal paths count.
   */
  allowed(path: string, literalOnly = false): string[] {
    const methods = new Set<string>();
    for (const entry of this.entries.values()) {
      if (entry.literal && entry.pattern.test(path)) for (const method of entry.methods) methods.add(method);
    }
    if (methods.size === 0 && !literalOnly) {
      for (const entry of this.entries.values()) {
        if (!entry.literal && entry.pattern.test(path)) for (const method of entry.methods) methods.add(method);
      }
    }
    if (methods.size === 0) return [];
    if (methods.has('GET')) methods.add('HEAD');
    methods.add('OPTIONS');
    return [...methods];
  }
}
