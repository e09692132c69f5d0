/**
 * The one mapper between a stored job and its Redis hash. Envelope fields keep their names (values that Lua
 * reads or writes stay raw strings, the rest JSON); internals are `@`-prefixed. The envelope fields fixed at
 * insert that no script needs one by one travel together as one JSON field, `@e` (SEALED). Lua never decodes
 * JSON, so user data (`args`, `meta`, `result`) round-trips byte for byte.
 */
import type { Job } from '@ojskit/core';
import type { JobInternals, JobState, JobSummary, StoredJob } from '@ojskit/core/driver';

/** Envelope fields stored as raw strings. */
const RAW_STRING = new Set([
  'specversion',
  'id',
  'type',
  'queue',
  'state',
  'created_at',
  'enqueued_at',
  'scheduled_at',
  'expires_at',
  'started_at',
  'completed_at',
  'discarded_at',
  'cancelled_at',
  'expired_at',
  'activated_at',
  'next_attempt_at',
  'worker_id',
  'workflow_id',
  'schema',
]);
/** Envelope fields stored as raw integers. */
const RAW_INT = new Set(['attempt', 'priority', 'max_attempts']);

type InternalKind = 'num' | 'bool' | 'str' | 'list' | 'json';
const INTERNALS: Record<keyof JobInternals, InternalKind> = {
  dueAt: 'num',
  expiresAt: 'num',
  visibleUntil: 'num',
  timeoutAt: 'num',
  visibilityMs: 'num',
  claimVisibilityMs: 'num',
  timeoutMs: 'num',
  uniqueUntil: 'num',
  finishedAt: 'num',
  dispatchedAt: 'num',
  workflowIndex: 'num',
  deadLetter: 'bool',
  uniqueKey: 'str',
  uniqueOnConflict: 'str',
  workflowRole: 'str',
  rateLimit: 'json',
  uniqueStates: 'list',
  progress: 'json',
};

/**
 * Envelope fields fixed at insert that no script reads: stored together as the JSON object in hash field
 * `@e`. Every string Redis hands a script costs, and every field a hash holds lengthens the listpack each
 * HSET/HMGET/HDEL scans: a claim reads a job in 9 fields instead of 15. A transition may set one (moving a
 * job to another queue sets `queue`): the field of its own then overrides `@e`; it may never remove one
 * (transition-args.ts refuses it). `created_at` goes first in `@e`: the one script that reads it (a queue
 * move dating the queue it creates) finds it with an anchored match.
 */
export const SEALED: ReadonlySet<string> = new Set([
  'created_at',
  'specversion',
  'id',
  'queue',
  'args',
  'meta',
  'max_attempts',
  'retry',
  'unique',
  'tags',
  'timeout_ms',
  'timeout',
  'visibility_timeout_ms',
  'schema',
  'expires_at',
]);
const SEALED_FIELD = '@e';

/**
 * Hash fields packed, in this order, into the one hash field `@h` as text joined by `|` (empty: absent): the
 * fields a claim or an ACK reads and rewrites, so that each rewrites one field instead of six, and a claim
 * reads a job in 3 fields instead of 9 (callgrind: 117k -> 86k Redis instructions per claimed job). The
 * values are engine-made (states, integers, timestamps, a job type) and never hold `|`, except `worker_id`,
 * which comes from workers and so goes last: its value is the rest of the text. lib/generated.lua carries
 * this list into Lua (lib/hot.lua reads and writes `@h`).
 */
export const HOT_FIELDS = [
  'state',
  'attempt',
  'type',
  'priority',
  'enqueued_at',
  'started_at',
  'completed_at',
  '@visibilityMs',
  '@timeoutMs',
  '@claimVisibilityMs',
  '@visibleUntil',
  '@timeoutAt',
  '@finishedAt',
  'worker_id',
] as const;
const HOT_FIELD = '@h';
const HOT_RANK: ReadonlyMap<string, number> = new Map(HOT_FIELDS.map((f, i) => [f, i]));
const LAST_HOT = HOT_FIELDS.length - 1;

/** The position of a hash field inside `@h`, or undefined when it is a field of its own. */
export function hotRank(field: string): number | undefined {
  return HOT_RANK.get(field);
}

/** Refuses a value `@h` could not hold (a driver bug: only worker_id, which goes last, may contain `|`). */
export function checkHotValue(field: string, value: string): void {
  if (value === '' || (value.includes('|') && HOT_RANK.get(field) !== LAST_HOT)) {
    throw new Error(`@ojskit/redis: '${field}' cannot be stored as ${JSON.stringify(value)} (empty, or holding '|').`);
  }
}

/**
 * Where each field of the `@h` located last starts (`HOT_STARTS[HOT_FIELDS.length]`: its length + 1), filled
 * by `locateHot`: scratch shared by every reader of `@h` in Node, so reading one allocates no array (it runs
 * for every claimed job and every ACK).
 */
const HOT_STARTS = new Int32Array(HOT_FIELDS.length + 1);

/** Locates the fields of a packed `@h` (read them with `hotAt`); false when it has fewer than `@h` holds. */
export function locateHot(h: string): boolean {
  let at = 0;
  for (let i = 1; i <= LAST_HOT; i++) {
    const cut = h.indexOf('|', at);
    if (cut < 0) return false;
    at = cut + 1;
    HOT_STARTS[i] = at;
  }
  HOT_STARTS[LAST_HOT + 1] = h.length + 1;
  return true;
}

/** Field `rank` of the `@h` located last ('' when absent; worker_id, the last, is the rest of the text). */
export function hotAt(h: string, rank: number): string {
  return h.slice(HOT_STARTS[rank]!, HOT_STARTS[rank + 1]! - 1);
}

/** Where field `rank` of the `@h` located last starts (rank `HOT_FIELDS.length`: the text's length + 1). */
export function hotStart(rank: number): number {
  return HOT_STARTS[rank]!;
}

/** The hash fields of a packed `@h` (for tests and tools that read job hashes directly). */
export function unpackHot(h: string): Record<string, string> {
  const out: Record<string, string> = {};
  if (!locateHot(h)) return out;
  for (let rank = 0; rank <= LAST_HOT; rank++) {
    const value = hotAt(h, rank);
    if (value !== '') out[HOT_FIELDS[rank]!] = value;
  }
  return out;
}

/** Key order of served envelopes (hash field order is not preserved by Redis for large hashes). */
export const ENVELOPE_ORDER: readonly string[] = [
  'specversion',
  'id',
  'type',
  'queue',
  'args',
  'meta',
  'priority',
  'state',
  'attempt',
  'max_attempts',
  'created_at',
  'enqueued_at',
  'scheduled_at',
  'expires_at',
  'started_at',
  'completed_at',
  'discarded_at',
  'cancelled_at',
  'expired_at',
  'activated_at',
  'result',
  'error',
  'errors',
  'retry_delay_ms',
  'next_attempt_at',
  'retry',
  'unique',
  'tags',
  'timeout_ms',
  'timeout',
  'visibility_timeout_ms',
  'worker_id',
  'parent_results',
  'workflow_id',
  'schema',
];
const ORDER_RANK = new Map(ENVELOPE_ORDER.map((k, i) => [k, i]));

// JSON.stringify writes -0 as 0; JSON.parse reads the literal -0 back as -0. The replacer swaps -0 for a
// token no user string can equal (random per process), and the token is then written as the literal.
const NEGATIVE_ZERO = `__ojskit_negative_zero_${Math.random().toString(36).slice(2)}__`;
const NEGATIVE_ZERO_QUOTED = JSON.stringify(NEGATIVE_ZERO);

function keepNegativeZero(_key: string, value: unknown): unknown {
  return value === 0 && Object.is(value, -0) ? NEGATIVE_ZERO : value;
}

/**
 * True when `value` may hold a -0 (or cannot cheaply be told not to: very deep, or with `toJSON`). A replacer
 * takes JSON.stringify off its fast path, several times slower; almost no value needs it.
 */
function mayHoldNegativeZero(value: unknown, depth: number): boolean {
  if (typeof value === 'number') return value === 0 && 1 / value < 0;
  if (typeof value !== 'object' || value === null) return false;
  if (depth > 32 || typeof (value as { toJSON?: unknown }).toJSON === 'function') return true;
  if (Array.isArray(value)) {
    for (const item of value) if (mayHoldNegativeZero(item, depth + 1)) return true;
    return false;
  }
  for (const key in value) if (mayHoldNegativeZero((value as Record<string, unknown>)[key], depth + 1)) return true;
  return false;
}

/** JSON text of a user value, exactly: -0 stays -0 (args and results come back as sent). */
export function encodeJson(value: unknown): string {
  if (!mayHoldNegativeZero(value, 0)) return JSON.stringify(value);
  const text = JSON.stringify(value, keepNegativeZero);
  return text.includes(NEGATIVE_ZERO_QUOTED) ? text.replaceAll(NEGATIVE_ZERO_QUOTED, '-0') : text;
}

/** Field name of an envelope attribute (attributes starting with `@` or `\` are escaped with `\`). */
export function envelopeField(key: string): string {
  return key.startsWith('@') || key.startsWith('\\') ? `\\${key}` : key;
}

function envelopeKey(field: string): string {
  return field.startsWith('\\') ? field.slice(1) : field;
}

/** Encodes one envelope value; `undefined` when the field must be absent. */
export function encodeEnvelopeValue(key: string, value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (RAW_STRING.has(key)) return value === null ? undefined : String(value);
  if (RAW_INT.has(key)) return value === null ? undefined : String(Math.trunc(Number(value)));
  return encodeJson(value);
}

/** Encodes one internal value; `undefined` when the field must be absent. */
export function encodeInternalValue(key: string, value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  switch (INTERNALS[key as keyof JobInternals] ?? 'json') {
    case 'num':
      return String(value);
    case 'bool':
      return value ? '1' : '0';
    case 'str':
      return String(value);
    case 'list':
      return `,${(value as string[]).join(',')},`;
    default:
      return JSON.stringify(value);
  }
}

function decodeInternal(key: string, raw: string): unknown {
  switch (INTERNALS[key as keyof JobInternals] ?? 'json') {
    case 'num':
      return Number(raw);
    case 'bool':
      return raw === '1';
    case 'str':
      return raw;
    case 'list':
      return raw.split(',').filter((s) => s !== '');
    default:
      return JSON.parse(raw);
  }
}

/** A sealed field's value as its own hash field would decode it (`undefined`: absent). */
function sealedValue(key: string, value: unknown): unknown {
  if (value === undefined) return undefined;
  if (RAW_STRING.has(key)) return value === null ? undefined : String(value);
  if (RAW_INT.has(key)) return value === null ? undefined : Math.trunc(Number(value));
  return value;
}

/** Flat field/value list of a stored job, as HSET takes it. */
export function encodeStoredJob(stored: StoredJob): string[] {
  const out: string[] = ['', ''];
  const hot: string[] = new Array<string>(HOT_FIELDS.length).fill('');
  const sealed: Record<string, unknown> = {};
  let nSealed = 0;
  if (typeof stored.job.created_at === 'string') sealed.created_at = undefined; // reserves the first key
  for (const [key, value] of Object.entries(stored.job)) {
    if (SEALED.has(key)) {
      const v = sealedValue(key, value);
      if (v !== undefined) {
        sealed[key] = v;
        nSealed++;
      }
      continue;
    }
    const encoded = encodeEnvelopeValue(key, value);
    if (encoded === undefined) continue;
    const field = envelopeField(key);
    const rank = HOT_RANK.get(field);
    if (rank === undefined) out.push(field, encoded);
    else {
      checkHotValue(field, encoded);
      hot[rank] = encoded;
    }
  }
  // first in the hash: a listpack keeps insertion order, so the fields scripts look up sit nearer the end
  if (nSealed > 0) {
    out[0] = SEALED_FIELD;
    out[1] = encodeJson(sealed);
  } else out.splice(0, 2);
  for (const [key, value] of Object.entries(stored.x)) {
    const encoded = encodeInternalValue(key, value);
    if (encoded === undefined) continue;
    const field = `@${key}`;
    const rank = HOT_RANK.get(field);
    if (rank === undefined) out.push(field, encoded);
    else {
      checkHotValue(field, encoded);
      hot[rank] = encoded;
    }
  }
  out.push(HOT_FIELD, hot.join('|'));
  return out;
}

// How each envelope field of ENVELOPE_ORDER is stored, indexed by its rank there.
const RAW = 0;
const INT = 1;
const JSON_TEXT = 2;
const KIND_BY_RANK = ENVELOPE_ORDER.map((key) => (RAW_STRING.has(key) ? RAW : RAW_INT.has(key) ? INT : JSON_TEXT));

/**
 * The served envelope of the present slots, keys in ENVELOPE_ORDER: per set of present ranks (a bit per rank),
 * a function returning one object literal with those keys, so every envelope of that set is made in one step
 * with one hidden class. Storing the keys one by one (`job[name] = value`, a key that changes every store)
 * cost a claimed job ~0.35 µs more (of ~1.35 µs to decode it, ~0.6 of them JSON.parse of '@e'). The keys are
 * ENVELOPE_ORDER's, never data; past ASSEMBLER_LIMIT sets, or where code generation is disallowed, envelopes are
 * assembled key by key.
 */
type Assemble = (slots: readonly unknown[]) => Record<string, unknown>;
/** Ranks 0–29 as a bit each of one key, the rest of another (both stay small integers). */
const LOW_RANKS = 30;
/** By the bits of the ranks from LOW_RANKS on, then of those below. */
const ASSEMBLERS: Array<Map<number, Assemble>> = [];
let assemblerCount = 0;
const ASSEMBLER_LIMIT = 512;

function assembler(low: number, high: number): Assemble | undefined {
  const byLow = (ASSEMBLERS[high] ??= new Map());
  let assemble = byLow.get(low);
  if (assemble === undefined && assemblerCount < ASSEMBLER_LIMIT) {
    const entries: string[] = [];
    for (let rank = 0; rank < ENVELOPE_ORDER.length; rank++) {
      const bits = rank < LOW_RANKS ? low >>> rank : high >>> (rank - LOW_RANKS);
      if ((bits & 1) === 1) entries.push(`${JSON.stringify(ENVELOPE_ORDER[rank])}: s[${rank}]`);
    }
    try {
      assemble = new Function('s', `return { ${entries.join(', ')} };`) as Assemble;
    } catch {
      // code generation disallowed (`--disallow-code-generation-from-strings`, a locked-down runtime):
      // every envelope is assembled key by key from now on
      assemblerCount = ASSEMBLER_LIMIT;
      return undefined;
    }
    byLow.set(low, assemble);
    assemblerCount++;
  }
  return assemble;
}

/** The last '@h' a batch decoded, and its pairs (hotPairs). */
interface LastHot {
  hot: string;
  pairs: unknown[];
}

/** The slots of one decoding (see decodeFlat; nothing it calls decodes). */
const SLOTS: unknown[] = new Array<unknown>(ENVELOPE_ORDER.length).fill(undefined);

/**
 * An '@h''s envelope fields as (rank in ENVELOPE_ORDER, value) pairs; its internals go into `x` when given.
 * Empty when it holds fewer fields than '@h' does.
 */
function hotPairs(hot: string, x: Record<string, unknown> | null): unknown[] {
  const pairs: unknown[] = [];
  if (!locateHot(hot)) return pairs;
  for (let rank = 0; rank <= LAST_HOT; rank++) {
    const raw = hotAt(hot, rank);
    if (raw === '') continue;
    const field = HOT_FIELDS[rank]!;
    if (field.charCodeAt(0) === 64 /* @ */) {
      if (x) x[field.slice(1)] = decodeInternal(field.slice(1), raw);
    } else {
      const order = ORDER_RANK.get(field)!;
      pairs.push(order, KIND_BY_RANK[order] === INT ? Number(raw) : raw);
    }
  }
  return pairs;
}

/**
 * Decodes a flat HGETALL reply: the envelope (fields of ENVELOPE_ORDER land in a slot per rank, then go out
 * in that order, unknown attributes after them in stored order), and the internals into `x` when given.
 * Decodes the pairs of `flat` from `from` to `to` only, with '@h' and '@e' given apart, when they are.
 * `hotSeen` (only without `x`) keeps what the last '@h' decoded to, for a batch whose jobs mostly share one.
 */
function decodeFlat(
  flat: readonly string[],
  x: Record<string, unknown> | null,
  from = 0,
  to = flat.length,
  hot?: string,
  sealed?: string,
  hotSeen?: LastHot,
): Job {
  const slots = SLOTS;
  // emptied first, not last: a JSON.parse below may throw
  slots.fill(undefined);
  let unordered: Array<[string, unknown]> | undefined;
  for (let i = from; i < to; i += 2) {
    const field = flat[i]!;
    const raw = flat[i + 1]!;
    if (field === HOT_FIELD) {
      hot = raw;
      continue;
    }
    if (field.charCodeAt(0) === 64 /* @ */) {
      if (field === SEALED_FIELD) {
        sealed = raw;
        continue;
      }
      // '@seq': stored by versions before 2026-11-26, no internal
      if (x && field !== '@seq') {
        const key = field.slice(1);
        x[key] = decodeInternal(key, raw);
      }
      continue;
    }
    const rank = ORDER_RANK.get(field);
    if (rank === undefined) {
      (unordered ??= []).push([envelopeKey(field), JSON.parse(raw)]);
      continue;
    }
    const kind = KIND_BY_RANK[rank];
    slots[rank] = kind === RAW ? raw : kind === INT ? Number(raw) : JSON.parse(raw);
  }
  if (hot !== undefined) {
    let pairs: unknown[];
    if (hotSeen && !x && hotSeen.hot === hot) pairs = hotSeen.pairs;
    else {
      pairs = hotPairs(hot, x);
      if (hotSeen && !x) {
        hotSeen.hot = hot;
        hotSeen.pairs = pairs;
      }
    }
    for (let k = 0; k < pairs.length; k += 2) slots[pairs[k] as number] = pairs[k + 1];
  }
  if (sealed !== undefined) {
    // a field of its own, were there one, is the newer value
    const values = JSON.parse(sealed) as Record<string, unknown>;
    for (const key in values) {
      const rank = ORDER_RANK.get(key);
      if (rank === undefined) (unordered ??= []).push([key, values[key]]);
      else if (slots[rank] === undefined) slots[rank] = values[key];
    }
  }
  let low = 0;
  let high = 0;
  for (let rank = 0; rank < LOW_RANKS; rank++) if (slots[rank] !== undefined) low |= 1 << rank;
  for (let rank = LOW_RANKS; rank < slots.length; rank++) if (slots[rank] !== undefined) high |= 1 << (rank - LOW_RANKS);
  const assemble = assembler(low, high);
  let job: Record<string, unknown>;
  if (assemble) job = assemble(slots);
  else {
    job = {};
    for (let rank = 0; rank < slots.length; rank++) {
      if (slots[rank] !== undefined) job[ENVELOPE_ORDER[rank]!] = slots[rank];
    }
  }
  if (unordered) {
    for (const [key, value] of unordered) Object.defineProperty(job, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return job as Job;
}

/** Decodes a flat HGETALL reply into a stored job. */
export function decodeStoredJob(flat: readonly string[]): StoredJob {
  const x: Record<string, unknown> = {};
  const job = decodeFlat(flat, x);
  return { job, x: x as unknown as JobInternals };
}

/** Decodes a flat HGETALL reply into the served envelope (internals skipped). */
export function decodeJob(flat: readonly string[]): Job {
  return decodeFlat(flat, null);
}

/**
 * Decodes the claimed jobs of job-claim.lua's reply (internals skipped): one flat list holding, per job,
 * '@h' (0: the previous job's), '@e' (null when absent), the count n of the job's other envelope fields, then
 * their n name/value pairs. `onJob` gets each job with its '@h' as the claim wrote it.
 */
export function decodeClaimedJobs(flat: ReadonlyArray<string | number | null>, onJob?: (job: Job, hot: string) => void): Job[] {
  const jobs: Job[] = [];
  // the jobs of one claim mostly share their '@h' (see job-claim.lua): comparing two equal strings is cheaper
  // than hashing one for a Map
  const hotSeen: LastHot = { hot: '', pairs: [] };
  let hot = '';
  let i = 0;
  while (i < flat.length) {
    const from = i + 3;
    const to = from + 2 * (flat[i + 2] as number);
    if (flat[i] !== 0) hot = flat[i] as string;
    const job = decodeFlat(flat as readonly string[], null, from, to, hot, (flat[i + 1] as string | null) ?? undefined, hotSeen);
    jobs.push(job);
    onJob?.(job, hot);
    i = to;
  }
  return jobs;
}

/** Decodes the summary fields the scripts return (id, type, queue, state, attempt, workflow_id). */
export function decodeSummary(row: ReadonlyArray<string | null | false>): JobSummary {
  const summary: JobSummary = {
    id: row[0] as string,
    type: row[1] as string,
    queue: row[2] as string,
    state: row[3] as JobState,
    attempt: Number(row[4] ?? 0),
  };
  if (row[5]) summary.workflow_id = row[5];
  return summary;
}
