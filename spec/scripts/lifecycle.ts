/**
 * Renders the lifecycle block of spec/lifecycle.md (state table, transition table, guard sets, state sets,
 * transition effects, Mermaid diagram) from core's lifecycle module, so the spec can never drift from the code
 * that enforces it.
 */
import { readFileSync } from 'node:fs';
import { JOB_STATES, TERMINAL_STATES, type JobState } from '@ojskit/core';
import {
  DISPATCH_EFFECTS,
  DISPATCH_TRANSITIONS,
  EFFECTS,
  STATE_INDEX,
  STATE_ROLES,
  STATE_SETS,
  TRANSITIONS,
  TRIGGERS,
  allowedFrom,
  type TransitionEffect,
  type Trigger,
} from '@ojskit/core/lifecycle';
import type { GeneratedFile } from './generated-file.js';

export const BEGIN_MARKER = '<!-- lifecycle:begin -->';
export const END_MARKER = '<!-- lifecycle:end -->';

/**
 * Prose for each trigger. Typed against core's `Trigger` so a trigger added to core without a sentence here
 * fails the typecheck, and `describeTrigger` fails the run if one slips through anyway.
 */
const TRIGGER_TEXT: Record<Trigger, string> = {
  push: 'PUSH (`POST /ojs/v1/jobs`, batch, workflow step, cron firing)',
  timer: '`scheduled_at` or `next_attempt_at` reached (promoter, or FETCH promoting due jobs itself)',
  activate: 'ACTIVATE (`POST /ojs/v1/jobs/:id/activate`)',
  fetch: 'FETCH claim (`POST /ojs/v1/workers/fetch`)',
  expiry: '`expires_at` passed before the job started',
  ack: 'ACK (`POST /ojs/v1/workers/ack`)',
  fail: 'FAIL (`POST /ojs/v1/workers/nack`); the retry decision picks `retryable` or `discarded`',
  requeue: 'FAIL with `requeue: true`: released without consuming the attempt',
  visibility_timeout: 'visibility deadline passed without ACK/FAIL/heartbeat',
  execution_timeout: 'execution limit (`timeout_ms`) exceeded; then as FAIL',
  worker_death: 'the claiming worker stopped heartbeating',
  cancel: 'CANCEL (`DELETE /ojs/v1/jobs/:id`, workflow cancel, admin cancel)',
  dead_letter_retry: 'manual retry (dead-letter retry route or admin job retry)',
  unique_replace: 'a newer job with the same unique key and `on_conflict: replace`',
  dispatch: 'ojskit extension: the dispatch log delivered the job (drivers with `capabilities.dispatchLog`, the Kafka adapter)',
};

function describeTrigger(trigger: Trigger): string {
  const text = TRIGGER_TEXT[trigger];
  if (!text) throw new Error(`spec/scripts/lifecycle.ts has no description for trigger '${trigger}': add one to TRIGGER_TEXT.`);
  return text;
}

const code = (s: string): string => `\`${s}\``;
const from = (state: JobState | null): string => (state === null ? '∅ (new job)' : code(state));

/** The eight states, with terminality taken from core. */
function stateTable(): string[] {
  const lines = ['| State | Terminal | Entered by | Left by |', '|---|---|---|---|'];
  for (const state of JOB_STATES) {
    const entered = [...new Set(TRANSITIONS.filter((t) => t.to === state).map((t) => t.trigger))];
    const left = [...new Set(TRANSITIONS.filter((t) => t.from === state).map((t) => t.trigger))];
    const terminal = TERMINAL_STATES.includes(state) ? (left.length ? 'yes (manual exit only)' : 'yes') : 'no';
    lines.push(`| ${code(state)} | ${terminal} | ${entered.map(code).join(', ') || '—'} | ${left.map(code).join(', ') || '—'} |`);
  }
  return lines;
}

/** One line per row of core's table, in table order. */
function transitionTable(): string[] {
  const lines = ['| Rule | From | Trigger | To |', '|---|---|---|---|'];
  for (const t of TRANSITIONS) lines.push(`| ${t.rule} | ${from(t.from)} | ${code(t.trigger)} | ${code(t.to)} |`);
  return lines;
}

/** The dispatch-log extension rows (DISPATCH_TRANSITIONS) and their effects (DISPATCH_EFFECTS). */
function dispatchTable(): string[] {
  const lines = ['| Rule | From | Trigger | To |', '|---|---|---|---|'];
  for (const t of DISPATCH_TRANSITIONS) lines.push(`| ${t.rule} | ${from(t.from)} | ${code(t.trigger)} | ${code(t.to)} |`);
  return [...lines, '', ...effectRows(DISPATCH_EFFECTS, '`DISPATCH_EFFECTS.…`')];
}

/** The from-states each (trigger, to) pair may start in: exactly what adapters put in their compare-and-set. */
function guardTable(): string[] {
  const lines = ['| Trigger | To | Allowed from (the guard) |', '|---|---|---|'];
  const seen = new Set<string>();
  for (const t of TRANSITIONS) {
    const key = `${t.trigger}→${t.to}`;
    if (t.from === null || seen.has(key)) continue;
    seen.add(key);
    lines.push(`| ${code(t.trigger)} | ${code(t.to)} | ${allowedFrom(t.to, t.trigger).map(code).join(', ')} |`);
  }
  return lines;
}

function triggerTable(): string[] {
  return ['| Trigger | Meaning |', '|---|---|', ...TRIGGERS.map((t) => `| ${code(t)} | ${describeTrigger(t)} |`)];
}

const list = (items: readonly string[]): string => items.map(code).join(', ') || '—';

/** Core's STATE_SETS and each state's index (STATE_INDEX). */
function setTable(): string[] {
  const lines = ['| Set (`STATE_SETS.…`) | States |', '|---|---|'];
  for (const [name, states] of Object.entries(STATE_SETS)) lines.push(`| ${code(name)} | ${list(states)} |`);
  lines.push('', '| Role (`STATE_ROLES.…`) | State |', '|---|---|');
  for (const [name, state] of Object.entries(STATE_ROLES)) lines.push(`| ${code(name)} | ${code(state)} |`);
  lines.push('', '| State | Index (`STATE_INDEX`) |', '|---|---|');
  for (const state of JOB_STATES) lines.push(`| ${code(state)} | ${code(STATE_INDEX[state])} |`);
  return lines;
}

/** Core's EFFECTS: what each move writes besides the state. */
function effectTable(): string[] {
  return effectRows(EFFECTS, '`EFFECTS.…`');
}

function effectRows(effects: Record<string, TransitionEffect>, title: string): string[] {
  const lines = [`| Effect (${title}) | Trigger | From → to | Set to now | Removed | Set from inputs |`, '|---|---|---|---|---|---|'];
  const x = (fields: readonly string[]) => fields.map((f) => `x.${f}`);
  for (const [name, e] of Object.entries(effects)) {
    const now = [...e.stamp, ...x(e.xStamp)];
    const inputs = [...(e.attempt === 'increment' ? ['attempt + 1'] : []), ...e.assign, ...x(e.xAssign)];
    lines.push(
      `| ${code(name)} | ${code(e.trigger)} | ${list(e.from)} → ${code(e.to)} | ${list(now)} | ${list([...e.unset, ...x(e.xUnset)])} | ${list(inputs)} |`,
    );
  }
  return lines;
}

/** Mermaid diagram: one edge per (from, to) pair, labelled with every trigger that takes it. */
function diagram(): string[] {
  const edges = new Map<string, Trigger[]>();
  for (const t of TRANSITIONS) {
    const key = `${t.from ?? '[*]'} --> ${t.to}`;
    const triggers = edges.get(key) ?? [];
    if (!triggers.includes(t.trigger)) triggers.push(t.trigger);
    edges.set(key, triggers);
  }
  const lines = ['```mermaid', 'stateDiagram-v2'];
  for (const [edge, triggers] of edges) lines.push(`    ${edge}: ${triggers.join(' / ')}`);
  for (const state of TERMINAL_STATES) lines.push(`    ${state} --> [*]`);
  lines.push('```');
  return lines;
}

/** The generated block, markers included. */
export function renderLifecycleBlock(): string {
  return [
    BEGIN_MARKER,
    '<!-- Generated by spec/scripts/generate.ts from @ojskit/core (JOB_STATES, TERMINAL_STATES, TRANSITIONS, STATE_SETS, STATE_ROLES, EFFECTS). Do not edit by hand: run `pnpm spec`. -->',
    '',
    '### States',
    '',
    ...stateTable(),
    '',
    '### Transition table',
    '',
    `${TRANSITIONS.length} rows. A rule number groups rows that the protocol states as one rule. Any (from, to, trigger) not listed is illegal.`,
    '',
    ...transitionTable(),
    '',
    '### Triggers',
    '',
    ...triggerTable(),
    '',
    '### Guard sets',
    '',
    'For each (trigger, target) pair, the only states the job may be in when the change is applied. Adapters',
    'enforce this set where the data lives (Lua, SQL `WHERE state = ANY(...)`, compare-and-set).',
    '',
    ...guardTable(),
    '',
    '### State sets',
    '',
    'What a backend does with each state, derived from the table: which index holds it, what a claim, the timer or',
    'expiry moves. Adapters import these (`@ojskit/core`) or render them into their Lua and SQL; none lists states itself.',
    '',
    ...setTable(),
    '',
    '### Transition effects',
    '',
    'What each move writes besides the new state. "Now" is the primitive\'s instant (`nowIso` for envelope fields,',
    '`now` in epoch ms for internals `x.…`); removed fields are deleted; fields set from inputs come from the',
    "primitive's parameters or the job (see `EFFECTS` in core). The adapter applies each effect inside the driver",
    "primitive named for it: claim in `jobClaim`; promote and expire in `jobPromote`, `jobExpire` and on a claim's way;",
    'uniqueReplace in `jobInsert`; ack in `jobCompleteMany`; retry, discard, reclaim, reclaimDiscard and requeue in',
    "`jobFailMany` (the item's `outcome`). Cancel, activate and deadLetterRetry reach it as compare-and-sets the",
    'engine builds (`jobTransition`). Every one is guarded on the from-states above, where the data lives.',
    '',
    ...effectTable(),
    '',
    '### Diagram',
    '',
    ...diagram(),
    '',
    '### ojskit extension: dispatch through a log',
    '',
    'Not OJS protocol rows: only a driver with `capabilities.dispatchLog` (the Kafka adapter, issue 28) applies them;',
    'every other driver refuses them, and the sets, roles and guards above are derived without them. There `pending`',
    'is also the state of a job the log delivered and no worker took yet. A dispatched job carries `x.dispatchedAt`,',
    'which a job staged by `pending: true` never has: ACTIVATE applies only to staged jobs (409 on a dispatched one,',
    "refused by the store's guarded transition in the same atomic step), and a claim takes only dispatched ones.",
    'Decided 2026-11-27 (packages/kafka/README.md, option 1).',
    '',
    ...dispatchTable(),
    END_MARKER,
  ].join('\n');
}

/** spec/lifecycle.md with its generated block replaced; throws when the markers are missing or out of order. */
export function generateLifecycle(path: string): GeneratedFile {
  const current = readFileSync(path, 'utf8');
  const begin = current.indexOf(BEGIN_MARKER);
  const end = current.indexOf(END_MARKER);
  if (begin < 0 || end < begin) throw new Error(`${path} must contain ${BEGIN_MARKER} followed by ${END_MARKER}.`);
  const contents = current.slice(0, begin) + renderLifecycleBlock() + current.slice(end + END_MARKER.length);
  return { path, contents };
}
