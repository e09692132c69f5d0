/** The Lua sources: headers, includes, generated state tables, loading by SHA and re-loading after NOSCRIPT. */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { JOB_STATES, TERMINAL_STATES } from '@ojskit/core/driver';
import { SCRIPT_NAMES } from '../src/index.js';
import { generatedLua, scriptSource, withoutUnused } from '../src/script-source.js';
import { ScriptRunner } from '../src/script-runner.js';
import { storedJob, T0, iso } from './jobs.js';
import { RedisDriver } from '../src/index.js';
import { PrivateRedis, redisServerAvailable } from './private-redis.js';

const dir = fileURLToPath(new URL('../src/scripts/', import.meta.url));

describe('Lua sources', () => {
  it('has one .lua file per script name, each opening with a header naming KEYS, ARGV, Returns and the transition', () => {
    const files = readdirSync(dir)
      .filter((f) => f.endsWith('.lua'))
      .map((f) => f.replace(/\.lua$/, ''))
      .sort();
    expect(files).toEqual([...SCRIPT_NAMES].sort());
    for (const name of SCRIPT_NAMES) {
      const text = readFileSync(`${dir}${name}.lua`, 'utf8');
      expect(text.startsWith(`--[[ ${name}.lua:`), name).toBe(true);
      const header = text.slice(0, text.indexOf(']]'));
      for (const part of ['KEYS:', 'ARGV:', 'Returns', 'Transition']) expect(header, `${name} header lacks ${part}`).toContain(part);
    }
  });

  it('resolves includes once each, leaving no include directive behind', () => {
    for (const name of SCRIPT_NAMES) {
      const source = scriptSource(name);
      expect(source).not.toMatch(/--!include/);
      expect(source.split('local function idx_add(').length, name).toBeLessThanOrEqual(2);
    }
    expect(scriptSource('job-claim')).toContain('local function promote_due(');
  });

  it('leaves out of each script the generated tables and library functions it never uses', () => {
    const source = [
      '--[[ a header naming dead(x) and UNUSED_TOO keeps neither ]]',
      'local USED = { 1 }',
      'local UNUSED = { 2 }',
      'local UNUSED_TOO = { 3,',
      '  4 }',
      'local function one_liner(x) return x end',
      '-- one_liner(x) is not called',
      'local function leaf(x)',
      '  return x',
      'end',
      'local function only_for_dead(x)',
      '  return leaf(x)',
      'end',
      'local function dead(x)',
      '  return only_for_dead(x)',
      'end',
      'local function live(x)',
      '  if x then',
      '    return USED[1]',
      '  end',
      '  return leaf(x)',
      'end',
      'local t = { field = 1 }',
      'return live(t.dead)',
    ].join('\n');
    expect(withoutUnused(source).split('\n')).toEqual([
      '--[[ a header naming dead(x) and UNUSED_TOO keeps neither ]]',
      'local USED = { 1 }',
      '-- one_liner(x) is not called',
      'local function leaf(x)',
      '  return x',
      'end',
      'local function live(x)',
      '  if x then',
      '    return USED[1]',
      '  end',
      '  return leaf(x)',
      'end',
      'local t = { field = 1 }',
      'return live(t.dead)',
    ]);
    const claim = scriptSource('job-claim');
    expect(claim).not.toContain('local LEGAL =');
    expect(claim).not.toContain('local function job_remove(');
    expect(claim).toContain('local function idx_add(');
    // the ACK asks the table one question, answered at generation
    expect(scriptSource('job-complete-many')).not.toContain('local LEGAL =');
    expect(scriptSource('job-complete-many')).toContain('local ACK_LEGAL = true');
    expect(scriptSource('job-transition')).toContain('local LEGAL =');
  });

  it('keeps an unused definition whose value calls Redis or a function of the script', () => {
    const source = [
      'local function bump(k)',
      "  return redis.call('INCR', k)",
      'end',
      "local SIDE = redis.call('INCR', 'a')",
      "local VIA = bump('b')",
      "local PURE = string.rep('x', 3)",
      'return 1',
    ].join('\n');
    expect(withoutUnused(source).split('\n')).toEqual([
      'local function bump(k)',
      "  return redis.call('INCR', k)",
      'end',
      "local SIDE = redis.call('INCR', 'a')",
      "local VIA = bump('b')",
      'return 1',
    ]);
  });

  it('generates the state tables from core instead of re-typing them', () => {
    const lua = generatedLua();
    expect(lua).toContain(`local STATES = { ${JOB_STATES.map((s) => `"${s}"`).join(', ')} }`);
    for (const s of TERMINAL_STATES) expect(lua).toMatch(new RegExp(`TERMINAL = \\{[^}]*\\["${s}"\\] = true`));
    expect(lua).toContain('["active>completed"] = true');
    expect(lua).not.toContain('["completed>active"]');
  });
});

describe.skipIf(!redisServerAvailable)('script loading (private redis-server: the test flushes its script cache)', () => {
  let server: PrivateRedis | undefined;
  let driver: RedisDriver | undefined;
  afterEach(async () => {
    await driver?.close();
    await server?.stop();
  });

  it('calls scripts by SHA and re-loads one after the server forgets it (NOSCRIPT)', async () => {
    server = await PrivateRedis.start();
    driver = new RedisDriver({ url: server.url, checkMemoryPolicy: false });
    const runner = new ScriptRunner(driver.redis);
    const job = storedJob();
    await driver.jobInsert({ jobs: [job], now: T0, nowIso: iso(T0) });
    expect(await runner.run('job-get', [driver.prefix, job.job.id])).toBeTruthy();
    expect(runner.reloads).toBe(0);
    // Another connection flushing the cache stands for a restart or failover to a replica that never saw it.
    const other = driver.redis.duplicate();
    await other.script('FLUSH');
    other.disconnect();
    expect(await runner.run('job-get', [driver.prefix, job.job.id])).toBeTruthy();
    expect(runner.reloads).toBe(1);
    expect((await driver.jobGet(job.job.id))?.job.id).toBe(job.job.id);
  });
});
