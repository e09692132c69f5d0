/**
 * The lifecycle lives only in core: hand-written adapter code (TypeScript, Lua, SQL) imports or renders core's
 * states, sets and effects and never names a state itself. This scans the adapters' sources and migrations for a
 * state name in quotes and names each file:line it finds. Generated files, tests and comments are exempt.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { JOB_STATES } from '../src/index.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
/** Hand-written adapter code: every adapter's src/, and the Postgres migrations. */
const SCANNED = ['packages/memory/src', 'packages/redis/src', 'packages/postgres/src', 'packages/postgres/migrations', 'packages/kafka/src'];
const EXTENSIONS = /\.(ts|lua|sql)$/;
const EXEMPT = /(^|\/)(test|generated)(\/|$)|\.generated\.|\.test\.ts$|\.d\.ts$/;

const QUOTED_STATE = new RegExp(`(['"\`])(${JOB_STATES.join('|')})\\1`);

/** Where `text` names a state in quotes outside a comment: 1-based line numbers. */
export function stateLiterals(text: string, language: 'ts' | 'lua' | 'sql'): number[] {
  const hits: number[] = [];
  const lineComment = language === 'ts' ? '//' : '--';
  const [open, close] = language === 'lua' ? ['--[[', ']]'] : ['/*', '*/'];
  let inBlock = false;
  text.split('\n').forEach((raw, i) => {
    let line = raw;
    if (inBlock) {
      const end = line.indexOf(close);
      if (end < 0) return;
      line = line.slice(end + close.length);
      inBlock = false;
    }
    for (let start = line.indexOf(open); start >= 0; start = line.indexOf(open)) {
      const end = line.indexOf(close, start + open.length);
      if (end < 0) {
        line = line.slice(0, start);
        inBlock = true;
        break;
      }
      line = line.slice(0, start) + line.slice(end + close.length);
    }
    const trimmed = line.trimStart();
    // a TSDoc line inside /** … */ opened on an earlier line is handled above; a lone `*` line is a doc line too
    if (trimmed.startsWith(lineComment) || (language === 'ts' && trimmed.startsWith('*'))) return;
    if (QUOTED_STATE.test(line)) hits.push(i + 1);
  });
  return hits;
}

function files(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : [path];
  });
}

describe('adapter code names no state (core owns the lifecycle)', () => {
  it('finds a quoted state in code, not in comments', () => {
    expect(stateLiterals(`const a = 1;\nif (s === 'active') x();\n// 'active'\n/** 'active' */`, 'ts')).toEqual([2]);
    expect(stateLiterals(`--[[ header 'active'\n'discarded' ]]\nlocal s = "retryable"\n-- 'active'`, 'lua')).toEqual([3]);
    expect(stateLiterals(`-- 'active'\nWHERE state IN ('scheduled') /* 'x' */`, 'sql')).toEqual([2]);
    expect(stateLiterals('if (s === STATE_ROLES.claimed) x();', 'ts')).toEqual([]);
  });

  it('in memory, redis, postgres and kafka sources and migrations', () => {
    const found: string[] = [];
    let scanned = 0;
    for (const dir of SCANNED) {
      for (const path of files(join(ROOT, dir))) {
        const rel = relative(ROOT, path);
        if (!EXTENSIONS.test(rel) || EXEMPT.test(rel)) continue;
        scanned++;
        const language = rel.endsWith('.lua') ? 'lua' : rel.endsWith('.sql') ? 'sql' : 'ts';
        const lines = readFileSync(path, 'utf8').split('\n');
        for (const n of stateLiterals(lines.join('\n'), language)) found.push(`${rel}:${n}: ${lines[n - 1]!.trim()}`);
      }
    }
    expect(scanned, 'no adapter source found: is the scan looking in the right place?').toBeGreaterThan(50);
    const advice =
      "Adapter code names a state by hand. Use core's STATE_SETS / STATE_ROLES / EFFECTS (TypeScript), " +
      'STATE.<role>, STATE_IN.<set>(x), EFFECT_SET.<effect> in Lua (redis/src/script-source.ts), or a ' +
      '{{<set>_states}} / {{<role>_state}} placeholder in SQL (postgres/src/sql-template.ts):\n';
    expect(found, advice + found.join('\n')).toEqual([]);
  });
});
