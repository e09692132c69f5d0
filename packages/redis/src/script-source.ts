/**
 * Assembles the Lua sources of `src/scripts`: resolves `--!include lib/<file>.lua` lines (shared Lua lives
 * once, in `scripts/lib`), provides the virtual include `lib/generated.lua`, which carries core's state
 * lists into Lua, and renders the names scripts use for core's states and effects (`STATE.claimed`,
 * `EFFECT_SET.expire`…, see renderLifecycle) into literals, so the scripts never re-type them.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { HOT_FIELDS } from './codec.js';
import {
  ageBoostRankExpression,
  DISPATCH_EFFECTS,
  EFFECTS,
  JOB_STATES,
  MAX_HISTORY_ENTRIES,
  STATE_ROLES,
  STATE_SETS,
  TRANSITIONS,
  transitionTable,
  type JobState,
  type TransitionEffect,
} from '@ojskit/core/driver';

/** Every script, named like the driver method that runs it. */
export const SCRIPT_NAMES = [
  'job-insert',
  'job-claim',
  'job-claim-dispatched',
  'job-transition',
  'job-transition-many',
  'job-complete-many',
  'job-get',
  'job-history',
  'job-list',
  'job-delete',
  'job-heartbeat',
  'job-promote',
  'job-expire',
  'job-list-overdue',
  'job-prune',
  'job-counts',
  'queue-list',
  'queue-get',
  'queue-set-paused',
  'queue-config-get',
  'queue-config-set',
  'queue-config-list',
  'rate-limit-state',
  'worker-record',
  'worker-set-directive',
  'worker-list',
  'worker-delete',
  'cron-upsert',
  'cron-get',
  'cron-delete',
  'cron-advance',
  'workflow-get',
  'workflow-save',
  'lease-acquire',
  'lease-release',
] as const;
export type ScriptName = (typeof SCRIPT_NAMES)[number];

/**
 * Hot-path scripts: their arguments travel as one JSON array and (but for RESP_REPLY_SCRIPTS) their reply as
 * one JSON text, instead of hundreds of bulk strings per batch (what ioredis spends most of its time encoding
 * and parsing).
 */
export const PACKED_SCRIPTS: ReadonlySet<ScriptName> = new Set([
  'job-insert',
  'job-claim',
  'job-claim-dispatched',
  'job-transition',
  'job-transition-many',
  'job-complete-many',
]);
/**
 * Packed scripts that answer in RESP all the same: a claim's reply is mostly a few long strings per job (the
 * sealed envelope and '@h'), which `cjson.encode` would escape byte by byte (callgrind: 85.8k -> 82.4k Redis
 * instructions per claimed job as RESP). An ACK batch answers a short text per job (see job-complete-many.lua).
 */
export const RESP_REPLY_SCRIPTS: ReadonlySet<ScriptName> = new Set(['job-claim', 'job-claim-dispatched', 'job-complete-many']);

/** States indexed by due time (the driver contract's index rules). */
export const DUE_STATES: readonly JobState[] = STATE_SETS.due;
/** States in which `x.expiresAt` is enforced. */
export const EXPIRABLE_STATES: readonly JobState[] = STATE_SETS.expirable;

/**
 * A member every queue's active index holds besides its jobs (score +inf, so no deadline scan meets it; job
 * ids are UUIDs, so no job has this id). Longer than `zset-max-listpack-value` (64 bytes by default), it keeps
 * the sorted set a skiplist: a small sorted set is a listpack, whose ZADD reads every member's score back from
 * text, and an active index holds a worker's concurrency (50–100 jobs), the size where that costs most
 * (callgrind, 2026-11-25: ZADD + ZREM of one member 33.3k Redis instructions in a listpack of 50–100, 6.7k in a
 * skiplist). Redis never turns a skiplist back into a listpack, and the anchor keeps the key from emptying.
 */
export const ACTIVE_ANCHOR = '~ojskit:anchor:keeps-this-active-index-a-skiplist-not-a-listpack:never-a-job~';

const INCLUDE = /^--!include\s+(\S+)\s*$/gm;

function luaSet(states: readonly string[]): string {
  return `{ ${states.map((s) => `[${JSON.stringify(s)}] = true`).join(', ')} }`;
}

/** What a driver's scripts admit of core's table: `dispatchLog` adds the dispatch-log rows (a Kafka adapter's store). */
export interface ScriptOptions {
  dispatchLog?: boolean;
  /**
   * Whether transitions append their history lines (lib/history.lua); default true. False renders every
   * `HISTORY_ON` as `false`, so the appends compile away (the benchmarks' history-off rounds).
   */
  history?: boolean;
}

/** The Lua prelude generated from core's lifecycle module. */
export function generatedLua(options: ScriptOptions = {}): string {
  return [
    '-- lib/generated.lua: generated at load time from @ojskit/core (states.ts, transitions.ts), the driver contract and codec.ts (HOT).',
    `local STATES = { ${JOB_STATES.map((s) => JSON.stringify(s)).join(', ')} }`,
    `local TERMINAL = ${luaSet(STATE_SETS.terminal)}`,
    `local DUE = ${luaSet(DUE_STATES)}`,
    `local BACKLOG = { ${STATE_SETS.backlog.map((s) => JSON.stringify(s)).join(', ')} }`,
    `local BACKLOG_IN = ${luaSet(STATE_SETS.backlog)}`,
    `local EXPIRABLE = ${luaSet(EXPIRABLE_STATES)}`,
    `local LEGAL = ${luaSet([
      ...new Set(
        transitionTable(options)
          .filter((t) => t.from !== null)
          .map((t) => `${t.from}>${t.to}`),
      ),
    ])}`,
    // job-complete-many's one question to the table, answered here: building LEGAL costs each call ~8k instructions
    `local ACK_LEGAL = ${TRANSITIONS.some((t) => t.from === STATE_ROLES.claimed && t.to === STATE_ROLES.completed)}`,
    `local REPLACEABLE = ${luaSet(STATE_SETS.uniqueReplaceable)}`,
    `local DEFAULT_UNIQUE_STATES = ${JSON.stringify(`,${STATE_SETS.uniqueBlocking.join(',')},`)}`,
    `local HOT = { ${HOT_FIELDS.map((f) => JSON.stringify(f)).join(', ')} }`,
    `local HOT_AT = { ${HOT_FIELDS.map((f, i) => `[${JSON.stringify(f)}] = ${i + 1}`).join(', ')} }`,
    // lib/age-boost.lua: core's rank, and where enqueued_at sits in '@h'
    `local AGE_RANK = function(e, p, i) return ${ageBoostRankExpression('e', 'p', 'i')} end`,
    `local HOT_ENQUEUED_AT = ${JSON.stringify(`^${'[^|]*|'.repeat(HOT_FIELDS.indexOf('enqueued_at'))}([^|]*)|`)}`,
    '',
  ].join('\n');
}

// Each call of a script runs its whole body: every table the generated prelude builds and every function a
// library defines is built again per EVALSHA (a closure ~425 Redis instructions, ~150 more per upvalue; the
// claim's prelude cost 119k instructions, the trivial script 12k). A script therefore gets only what it uses:
// generated tables it never names and library functions it never calls are left out of its source.
const GENERATED_LINE = /^local ([A-Z_]+) = .*$/;
const FUNCTION_START = /^local function ([A-Za-z_][A-Za-z0-9_]*)\(/;

/** Occurrences of `name` as a whole word in `text`. */
function mentions(text: string, name: string): number {
  return text.match(new RegExp(`(?<![A-Za-z0-9_.])${name}(?![A-Za-z0-9_])`, 'g'))?.length ?? 0;
}

/** `source` without its Lua comments (no script here writes `--` inside a string), for counting mentions. */
function withoutComments(source: string): string {
  return source.replace(/--\[\[[\s\S]*?\]\]/g, '').replace(/--[^\n]*/g, '');
}

/** Whether a definition's text calls Redis or one of the script's own functions (`defined`). */
function hasEffects(definition: string, defined: readonly string[]): boolean {
  const value = withoutComments(definition).replace(/^local [A-Z_]+ =/, '');
  return /\bredis\./.test(value) || defined.some((name) => new RegExp(`(?<![A-Za-z0-9_.])${name}\\s*\\(`).test(value));
}

/**
 * Drops top-level definitions nothing else in `source` mentions (comments do not count): `local NAME = ...` lines
 * (a table over several lines up to its closing brace) whose value calls neither Redis nor a function of the
 * script (those may have effects, and stay), and
 * `local function name(...)` blocks (a one-line function, or from that line to the next line that is `end` at
 * column 0, the layout of every library here), until none is left to drop.
 */
export function withoutUnused(source: string): string {
  let lines = source.split('\n');
  for (;;) {
    // a library's header naming a function keeps nothing alive: only code counts
    const text = withoutComments(lines.join('\n'));
    const defined = [...text.matchAll(new RegExp(FUNCTION_START.source, 'gm'))].map((m) => m[1]!);
    let cut: [number, number] | undefined;
    for (let i = 0; i < lines.length && !cut; i++) {
      const generated = GENERATED_LINE.exec(lines[i]!);
      const fn = generated ? undefined : FUNCTION_START.exec(lines[i]!);
      const name = generated?.[1] ?? fn?.[1];
      if (!name || mentions(text, name) > 1) continue;
      // a table written over several lines, up to the line that closes it
      if (generated) {
        let end = i;
        let open = 0;
        for (; end < lines.length; end++) {
          open += (lines[end]!.match(/\{/g)?.length ?? 0) - (lines[end]!.match(/\}/g)?.length ?? 0);
          if (open <= 0) break;
        }
        // a value that runs a command or a function of the script may have effects: kept even when unused
        if (end < lines.length && !hasEffects(lines.slice(i, end + 1).join('\n'), defined)) cut = [i, end];
      } else if (/\bend\s*$/.test(lines[i]!))
        cut = [i, i]; // a function written on one line
      else {
        let end = i + 1;
        while (end < lines.length && lines[end] !== 'end') end++;
        if (end < lines.length) cut = [i, end];
      }
    }
    if (!cut) return lines.join('\n');
    lines = [...lines.slice(0, cut[0]), ...lines.slice(cut[1] + 1)];
  }
}

// Sources sit next to this module: src/scripts when running from TypeScript, dist/scripts once built.
const SCRIPTS_DIR = new URL('./scripts/', import.meta.url);

function readLua(relative: string): string {
  return readFileSync(fileURLToPath(new URL(relative, SCRIPTS_DIR)), 'utf8');
}

/** lib/anchor.lua, generated: the active index's anchor member, for scripts that need nothing else generated. */
function anchorLua(): string {
  return `-- lib/anchor.lua: generated at load time from script-source.ts (ACTIVE_ANCHOR).\nlocal ACTIVE_ANCHOR = ${JSON.stringify(ACTIVE_ANCHOR)}\n`;
}

/**
 * The order of HOT_FIELDS job-claim.lua reads '@h' in (its CLAIM_READ pattern and the concatenation that
 * writes a claimed job's '@h'): building that script with another order would corrupt every claimed job.
 */
const CLAIM_HOT_ORDER =
  'state|attempt|type|priority|enqueued_at|started_at|completed_at|@visibilityMs|@timeoutMs|@claimVisibilityMs|@visibleUntil|@timeoutAt|@finishedAt|worker_id';

/**
 * What job-claim.lua writes for a claim, in its hand-tuned '@h' concatenation (CLAIM_READ and claim_fields): a
 * claim is the one move a script performs without rendering core's effect, so the effect is checked against
 * this instead, and the script is not built when they part.
 */
const CLAIM_LUA_WRITES = {
  to: STATE_ROLES.claimed,
  stamp: ['started_at'],
  unset: ['next_attempt_at'],
  xStamp: [],
  xUnset: ['progress'],
  assign: ['worker_id'],
  xAssign: ['claimVisibilityMs', 'visibleUntil', 'timeoutAt'],
  attempt: 'increment',
};

function checkClaimEffect(): void {
  const { trigger: _t, from: _f, ...effect } = EFFECTS.claim;
  if (JSON.stringify(effect) !== JSON.stringify(CLAIM_LUA_WRITES)) {
    throw new Error(
      `@ojskit/redis: job-claim.lua writes ${JSON.stringify(CLAIM_LUA_WRITES)}; core's EFFECTS.claim is now ${JSON.stringify(effect)}: update claim_fields`,
    );
  }
}

/** An internal field as stored in a job's hash. */
const stored = (field: string, internal: boolean) => (internal ? `@${field}` : field);

/**
 * The field/value list job_write takes for `effect` (its stamps at `nowIso` and `now`, which the script has in
 * scope). `stampsOnly`: an effect that also assigns fields from its inputs, which the script adds itself.
 */
function effectWrites(name: string, effect: TransitionEffect, stampsOnly = false): string {
  if (!stampsOnly && (effect.assign.length > 0 || effect.xAssign.length > 0 || effect.attempt)) {
    throw new Error(`@ojskit/redis: EFFECT_SET.${name} assigns fields from its inputs, which a script writes itself`);
  }
  const pairs = [
    `'state', ${JSON.stringify(effect.to)}`,
    ...effect.stamp.map((f) => `${JSON.stringify(stored(f, false))}, nowIso`),
    ...effect.xStamp.map((f) => `${JSON.stringify(stored(f, true))}, now`),
  ];
  return pairs.join(', ');
}

/** The fields job_write removes for `effect`. */
function effectDeletes(effect: TransitionEffect): string {
  return [...effect.unset.map((f) => stored(f, false)), ...effect.xUnset.map((f) => stored(f, true))].map((f) => JSON.stringify(f)).join(', ');
}

function lookup<T>(table: Readonly<Record<string, T>>, kind: string, name: string): T {
  if (!Object.hasOwn(table, name)) throw new Error(`@ojskit/redis: a script names ${kind}.${name}, which core does not define`);
  return table[name]!;
}

/**
 * What job-claim-dispatched.lua assigns besides `DISPATCH_STAMPS.claim` (it writes these from the claim's
 * inputs): the script is not built when core's `DISPATCH_EFFECTS.claim` assigns anything else.
 */
const DISPATCH_CLAIM_ASSIGNS = { assign: ['worker_id'], xAssign: ['claimVisibilityMs', 'visibleUntil', 'timeoutAt'], attempt: 'increment' };

function checkDispatchClaimEffect(): void {
  const { assign, xAssign, attempt } = DISPATCH_EFFECTS.claim;
  if (JSON.stringify({ assign, xAssign, attempt }) !== JSON.stringify(DISPATCH_CLAIM_ASSIGNS)) {
    throw new Error(
      `@ojskit/redis: job-claim-dispatched.lua assigns ${JSON.stringify(DISPATCH_CLAIM_ASSIGNS)}; core's DISPATCH_EFFECTS.claim now assigns ${JSON.stringify({ assign, xAssign, attempt })}`,
    );
  }
  // Its short way is job-claim.lua's (lib/claim-fields.lua) with the dispatch marker removed besides.
  const { trigger: _t, from: _f, ...effect } = DISPATCH_EFFECTS.claim;
  const expected = { ...CLAIM_LUA_WRITES, xUnset: [...CLAIM_LUA_WRITES.xUnset, DISPATCH_MARKER] };
  if (JSON.stringify(effect) !== JSON.stringify(expected)) {
    throw new Error(
      `@ojskit/redis: job-claim-dispatched.lua writes ${JSON.stringify(expected)}; core's DISPATCH_EFFECTS.claim is now ${JSON.stringify(effect)}: update its short way`,
    );
  }
  // ...and it takes a job out of its state's index as P:{q}:st:<state> (lib/indexes.lua index_name).
  const state = DISPATCH_EFFECTS.dispatch.to;
  if (state === STATE_ROLES.claimable || state === STATE_ROLES.claimed || DUE_STATES.includes(state) || STATE_SETS.terminal.includes(state)) {
    throw new Error(`@ojskit/redis: job-claim-dispatched.lua expects a dispatched job in P:{q}:st:${state}, which lib/indexes.lua no longer uses`);
  }
}

/** The internal field marking a job the log delivered (job-claim-dispatched.lua's CLAIM_DROP, '@' + it). */
const DISPATCH_MARKER = 'dispatchedAt';

/** The trigger of an insert: the table's rows from no state. */
const INSERT_TRIGGER = TRANSITIONS.find((t) => t.from === null)!.trigger;

/** The trigger `TRIGGER.<name>` names: an effect's, or `insert`'s. */
function triggerOf(name: string): string {
  return name === 'insert' ? INSERT_TRIGGER : lookup(EFFECTS, 'TRIGGER', name).trigger;
}

/**
 * Renders the build-time names a script uses for core's lifecycle data into literals, so they cost nothing when
 * the script runs (no table, no upvalue; see above):
 * - `STATE.<role>` → the quoted state of `STATE_ROLES.<role>` (`STATE.claimed` → `'active'`);
 * - `STATE_IN.<set>(<expr>)` → `(<expr> == 'a' or <expr> == 'b')` over `STATE_SETS.<set>`;
 * - `EFFECT_SET.<name>` → `'state', <to>, <field>, nowIso, '@<internal>', now, …`: job_write's writes of `EFFECTS.<name>`;
 * - `EFFECT_DEL.<name>` → the fields `EFFECTS.<name>` removes;
 * - `TRIGGER.<name>` → the quoted trigger of `EFFECTS.<name>` (`TRIGGER.insert`: an insert's, `push`);
 * - `HISTORY_MAX` → core's `MAX_HISTORY_ENTRIES`;
 * - the dispatch-log effects (`DISPATCH_EFFECTS`): `DISPATCHED` → the quoted state a dispatched job waits in,
 *   `DISPATCH_SET.<name>`, `DISPATCH_DEL.<name>` and `DISPATCH_TRIGGER.<name>` as above, `DISPATCH_STAMPS.<name>`
 *   → the state and stamps only (the script writes the assigned fields); `DISPATCH_FROM_IN(<expr>)` → whether
 *   `<expr>` is a state the dispatch move takes jobs from (`DISPATCH_EFFECTS.dispatch.from`).
 * An unknown name fails the build.
 */
export function renderLifecycle(source: string): string {
  return source
    .replace(
      /\bDISPATCH_FROM_IN\(([A-Za-z_][\w.]*)\)/g,
      (_m, expr: string) => `(${DISPATCH_EFFECTS.dispatch.from.map((s) => `${expr} == ${JSON.stringify(s)}`).join(' or ')})`,
    )
    .replace(/\bDISPATCH_SET\.([A-Za-z]+)\b/g, (_m, name: string) => effectWrites(name, lookup(DISPATCH_EFFECTS, 'DISPATCH_SET', name)))
    .replace(/\bDISPATCH_STAMPS\.([A-Za-z]+)\b/g, (_m, name: string) => effectWrites(name, lookup(DISPATCH_EFFECTS, 'DISPATCH_STAMPS', name), true))
    .replace(/\bDISPATCH_DEL\.([A-Za-z]+)\b/g, (_m, name: string) => effectDeletes(lookup(DISPATCH_EFFECTS, 'DISPATCH_DEL', name)))
    .replace(/\bDISPATCH_TRIGGER\.([A-Za-z]+)\b/g, (_m, name: string) => JSON.stringify(lookup(DISPATCH_EFFECTS, 'DISPATCH_TRIGGER', name).trigger))
    .replace(/\bDISPATCHED\b/g, JSON.stringify(DISPATCH_EFFECTS.dispatch.to))
    .replace(
      /\bSTATE_IN\.([A-Za-z]+)\(([A-Za-z_][\w.]*)\)/g,
      (_m, set: string, expr: string) =>
        `(${lookup(STATE_SETS, 'STATE_IN', set)
          .map((s) => `${expr} == ${JSON.stringify(s)}`)
          .join(' or ')})`,
    )
    .replace(/\bSTATE\.([A-Za-z]+)\b/g, (_m, role: string) => JSON.stringify(lookup(STATE_ROLES, 'STATE', role)))
    .replace(/\bEFFECT_SET\.([A-Za-z]+)\b/g, (_m, name: string) => effectWrites(name, lookup(EFFECTS, 'EFFECT_SET', name)))
    .replace(/\bEFFECT_DEL\.([A-Za-z]+)\b/g, (_m, name: string) => effectDeletes(lookup(EFFECTS, 'EFFECT_DEL', name)))
    .replace(/\bTRIGGER\.([A-Za-z]+)\b/g, (_m, name: string) => JSON.stringify(triggerOf(name)))
    .replace(/\bHISTORY_MAX\b/g, String(MAX_HISTORY_ENTRIES));
}

/** The full source of one script, includes resolved (each included once). */
export function scriptSource(name: ScriptName, options: ScriptOptions = {}): string {
  if (name === 'job-claim' && HOT_FIELDS.join('|') !== CLAIM_HOT_ORDER) {
    throw new Error(`@ojskit/redis: job-claim.lua reads '@h' as ${CLAIM_HOT_ORDER}; HOT_FIELDS is now ${HOT_FIELDS.join('|')}: update CLAIM_READ`);
  }
  if (name === 'job-claim') checkClaimEffect();
  if (name === 'job-claim-dispatched') checkDispatchClaimEffect();
  const seen = new Set<string>();
  const expand = (source: string): string =>
    source.replace(INCLUDE, (_line, file: string) => {
      if (seen.has(file)) return '';
      seen.add(file);
      if (file === 'lib/generated.lua') return generatedLua(options);
      if (file === 'lib/anchor.lua') return anchorLua();
      return expand(readLua(file));
    });
  const history = options.history !== false;
  const source = renderLifecycle(expand(readLua(`${name}.lua`)))
    .replace(/\bHISTORY_ON\b/g, String(history))
    // the dispatched-pending index (lib/indexes.lua) exists only in a dispatch log's store
    .replace(/\bDISPATCH_ON\b/g, String(options.dispatchLog === true))
    .replace(/\bHOT_COUNT\b/g, String(HOT_FIELDS.length));
  return withoutUnused(source);
}
