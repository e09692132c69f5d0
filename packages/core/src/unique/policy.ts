/** The unique policy object: validation and resolution into the fingerprint dimensions and conflict rule. */
import { OjsError } from '../errors/ojs-error.js';
import { durationToMs } from '../formats/durations.js';
import { STATE_SETS } from '../lifecycle/sets.js';
import { isJobState, type JobState } from '../lifecycle/states.js';

export const UNIQUE_DIMENSIONS = ['type', 'queue', 'args', 'meta'] as const;
export const UNIQUE_CONFLICT_RULES = ['reject', 'replace', 'replace_except_schedule', 'ignore'] as const;
export type UniqueConflictRule = (typeof UNIQUE_CONFLICT_RULES)[number];

/** States in which an existing job blocks a new one, unless the policy names others. */
export const DEFAULT_UNIQUE_STATES: readonly JobState[] = STATE_SETS.uniqueBlocking;

/** A resolved unique policy. */
export interface UniquePolicy {
  dimensions: Array<(typeof UNIQUE_DIMENSIONS)[number]>;
  argsKeys?: string[];
  metaKeys?: string[];
  periodMs?: number;
  states: JobState[];
  onConflict: UniqueConflictRule;
}

function bad(field: string, message: string, received?: unknown): never {
  throw OjsError.invalidRequest(`Invalid unique policy: ${field} ${message}.`, {
    field: `unique.${field}`,
    ...(received !== undefined ? { received } : {}),
  });
}

function stringList(raw: Record<string, unknown>, field: string): string[] | undefined {
  const value = raw[field];
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) bad(field, 'must be an array of strings', value);
  return value as string[];
}

/**
 * Validates `options.unique` (400 on failure) and applies the defaults: dimensions type+args, no period,
 * blocking states `STATE_SETS.uniqueBlocking` (every non-terminal state), conflict rule `reject`.
 */
export function resolveUniquePolicy(input: unknown): UniquePolicy {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) bad('', 'must be an object', input);
  const raw = input as Record<string, unknown>;
  const legacyKey = stringList(raw, 'key');
  const keys = stringList(raw, 'keys');
  let argsKeys = stringList(raw, 'args_keys');
  const metaKeys = stringList(raw, 'meta_keys');
  let dimensions: UniquePolicy['dimensions'];
  if (keys) {
    for (const k of keys) if (!(UNIQUE_DIMENSIONS as readonly string[]).includes(k)) bad('keys', `has unknown dimension '${k}'`, keys);
    dimensions = [...new Set(['type', ...keys])] as UniquePolicy['dimensions'];
  } else if (legacyKey) {
    dimensions = ['type', 'args'];
    argsKeys = argsKeys ?? legacyKey;
  } else {
    dimensions = ['type', 'args'];
  }
  if (dimensions.includes('meta') && !metaKeys) bad('meta_keys', "is required when 'meta' is a dimension");
  let periodMs: number | undefined;
  if (raw.period !== undefined) {
    const ms = typeof raw.period === 'string' ? durationToMs(raw.period) : undefined;
    if (ms === undefined || ms <= 0) bad('period', 'must be a positive ISO 8601 duration', raw.period);
    periodMs = ms;
  }
  let states: JobState[] = [...DEFAULT_UNIQUE_STATES];
  if (raw.states !== undefined) {
    const list = stringList(raw, 'states')!;
    for (const s of list) if (!isJobState(s)) bad('states', `has unknown state '${s}'`, list);
    states = list as JobState[];
  }
  let onConflict = (raw.on_conflict ?? 'reject') as string;
  if (onConflict === 'use_existing') onConflict = 'ignore';
  if (!(UNIQUE_CONFLICT_RULES as readonly string[]).includes(onConflict))
    bad('on_conflict', `must be one of ${UNIQUE_CONFLICT_RULES.join(', ')}`, raw.on_conflict);
  return {
    dimensions,
    ...(argsKeys ? { argsKeys } : {}),
    ...(metaKeys ? { metaKeys } : {}),
    ...(periodMs !== undefined ? { periodMs } : {}),
    states,
    onConflict: onConflict as UniqueConflictRule,
  };
}
