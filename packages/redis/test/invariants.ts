/**
 * Index invariants, checked from the outside: every job hash is in exactly the indexes its state and
 * internals call for (driver.ts "Index rules"), with the right scores, and every index entry points at a job
 * of its own queue. Tests run random operations and then expect no violation.
 */
import { JOB_STATES, TERMINAL_STATES } from '@ojskit/core/driver';
import type { RedisDriver } from '../src/index.js';
import { unpackHot } from '../src/codec.js';
import { ACTIVE_ANCHOR } from '../src/script-source.js';

const SEQ_SPAN = 2 ** 40;

async function scanKeys(driver: RedisDriver, pattern: string): Promise<string[]> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await driver.redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    cursor = next;
    keys.push(...batch);
  } while (cursor !== '0');
  return keys;
}

/** Lists every disagreement between job hashes and indexes under the driver's prefix (empty when consistent). */
export async function indexViolations(driver: RedisDriver): Promise<string[]> {
  const r = driver.redis;
  const P = driver.prefix;
  const bad: string[] = [];
  const directory = await r.hgetall(`${P}:ids`);
  const queues = await r.smembers(`${P}:queues`);
  const seen = new Set<string>();
  for (const q of queues) {
    const k = (s: string) => `${P}:{${q}}:${s}`;
    const zsets: Record<string, Map<string, number>> = {};
    for (const name of ['avail', 'due', 'active', 'exp', 'fin', 'dl', 'st:pending']) {
      const flat = await r.zrange(k(name), 0, -1, 'WITHSCORES');
      const m = new Map<string, number>();
      for (let i = 0; i < flat.length; i += 2) m.set(flat[i]!, flat[i + 1] === 'inf' ? Infinity : Number(flat[i + 1]));
      zsets[name] = m;
    }
    // an active index that exists holds the anchor that keeps it a skiplist, and nothing else but jobs
    const active = zsets.active!;
    if (active.size > 0 && active.get(ACTIVE_ANCHOR) !== Infinity) bad.push(`${q}/active: no anchor at +inf`);
    active.delete(ACTIVE_ANCHOR);
    const counted: Record<string, number> = {};
    const seqCounter = Number((await r.get(k('seq'))) ?? 0);
    const seqs = new Set<number>();
    const jobKeys = await scanKeys(driver, `${P}:{${q}}:j:*`);
    const ids = new Set<string>();
    for (const key of jobKeys) {
      const id = key.slice(`${P}:{${q}}:j:`.length);
      ids.add(id);
      seen.add(id);
      const stored = await r.hgetall(key);
      const h: Record<string, string> = { ...stored, ...(stored['@h'] === undefined ? {} : unpackHot(stored['@h'])) };
      const state = h.state as (typeof JOB_STATES)[number];
      const num = (f: string) => (h[f] === undefined ? undefined : Number(h[f]));
      // a queue of its own (a job moved by a transition) overrides the one sealed in '@e' at insert
      const queue = h.queue ?? (JSON.parse(h['@e'] ?? '{}') as { queue?: string }).queue;
      if (queue !== q) bad.push(`${id}: queue ${queue} in queue ${q}`);
      if (directory[id] !== q) bad.push(`${id}: directory says ${directory[id]}, stored in ${q}`);
      counted[state] = (counted[state] ?? 0) + 1;
      const expect = (name: string, member: boolean, score?: number) => {
        const got = zsets[name]!.get(id);
        if (member && got === undefined) bad.push(`${id}: missing from ${name} (state ${state})`);
        if (!member && got !== undefined) bad.push(`${id}: should not be in ${name} (state ${state})`);
        if (member && score !== undefined && got !== score) bad.push(`${id}: ${name} score ${got}, expected ${score}`);
      };
      const dl = state === 'discarded' && h['@deadLetter'] === '1';
      const terminal = TERMINAL_STATES.includes(state);
      const deadline = Math.min(num('@visibleUntil') ?? Infinity, num('@timeoutAt') ?? Infinity);
      expect('avail', state === 'available');
      // an available job's score: its priority, then its FIFO sequence (not stored on the job), drawn from the queue's counter
      const avail = zsets.avail!.get(id);
      if (state === 'available' && avail !== undefined) {
        const priority = Number(h.priority ?? 0);
        const seq = avail % SEQ_SPAN;
        if (Math.floor(avail / SEQ_SPAN) !== 100 - priority) bad.push(`${id}: avail score ${avail} does not hold priority ${priority}`);
        if (!(seq >= 1 && seq <= seqCounter)) bad.push(`${id}: avail sequence ${seq} outside 1..${seqCounter}`);
        if (seqs.has(seq)) bad.push(`${id}: avail sequence ${seq} taken twice`);
        seqs.add(seq);
      }
      expect('due', state === 'scheduled' || state === 'retryable', num('@dueAt') ?? 0);
      expect('active', state === 'active', deadline);
      expect('exp', ['scheduled', 'available', 'retryable'].includes(state) && h['@expiresAt'] !== undefined, num('@expiresAt'));
      expect('fin', terminal && !dl, num('@finishedAt') ?? 0);
      expect('dl', dl, num('@finishedAt') ?? 0);
      expect('st:pending', state === 'pending', 0);
      if (h['@uniqueKey'] !== undefined && (await r.sismember(`${P}:u:${h['@uniqueKey']}`, id)) !== 1) {
        bad.push(`${id}: missing from unique set ${h['@uniqueKey']}`);
      }
    }
    const counts = await r.hgetall(k('counts'));
    for (const s of JOB_STATES) {
      if (Number(counts[s] ?? 0) !== (counted[s] ?? 0)) bad.push(`${q}: count of ${s} is ${counts[s] ?? 0}, ${counted[s] ?? 0} jobs are`);
    }
    for (const [name, members] of Object.entries(zsets)) {
      for (const id of members.keys()) if (!ids.has(id)) bad.push(`${q}/${name}: dangling entry ${id}`);
    }
  }
  for (const id of Object.keys(directory)) if (!seen.has(id)) bad.push(`directory: dangling entry ${id}`);
  for (const key of await scanKeys(driver, `${P}:u:*`)) {
    for (const id of await r.smembers(key)) if (!seen.has(id)) bad.push(`${key}: dangling member ${id}`);
  }
  return bad;
}
