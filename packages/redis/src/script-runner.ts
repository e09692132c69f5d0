/**
 * Runs the driver's Lua scripts by SHA: each script is loaded once per connection lifetime (SCRIPT LOAD) and
 * called with EVALSHA; a NOSCRIPT reply (script cache flushed, failover to a replica that never saw it)
 * re-loads it and retries once.
 */
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { PACKED_SCRIPTS, RESP_REPLY_SCRIPTS, SCRIPT_NAMES, scriptSource, type ScriptName, type ScriptOptions } from './script-source.js';
import { toDriverError } from './errors.js';
import { corkUntilNextTick, uncorkNow } from './write-coalescing.js';

interface LoadedScript {
  source: string;
  sha: string;
  /** Pending or done SCRIPT LOAD; reset when the server reports NOSCRIPT. */
  loading: Promise<unknown> | null;
  /** The SCRIPT LOAD answered: calls go out at once, in the order they are made, without awaiting it. */
  loaded: boolean;
}

/** A reply of a script: nested arrays of strings, numbers and nulls. */
export type LuaReply = unknown;

/**
 * Each script's source and SHA, assembled once per process: a source depends only on the script's name and
 * the files shipped with the package, and assembling all of them took 0.2 to 0.5 s of CPU per driver on a
 * loaded machine (the Redis contract suite builds a driver per case).
 */
const COMPILED = new Map<string, { source: string; sha: string }>();

function compiled(name: ScriptName, options: ScriptOptions): { source: string; sha: string } {
  const key = `${name}${options.dispatchLog === true ? '+dispatch' : ''}${options.history === false ? '-history' : ''}`;
  let entry = COMPILED.get(key);
  if (entry === undefined) {
    const source = scriptSource(name, options);
    COMPILED.set(key, (entry = { source, sha: createHash('sha1').update(source).digest('hex') }));
  }
  return entry;
}

export class ScriptRunner {
  private readonly scripts = new Map<ScriptName, LoadedScript>();
  /** How many times a script had to be re-loaded after NOSCRIPT (observable by tests). */
  reloads = 0;

  constructor(
    private readonly redis: Redis,
    options: ScriptOptions = {},
  ) {
    for (const name of SCRIPT_NAMES) this.scripts.set(name, { ...compiled(name, options), loading: null, loaded: false });
  }

  /** The assembled source of a script (for docs and tests). */
  source(name: ScriptName): string {
    return this.entry(name).source;
  }

  /**
   * Runs a script: EVALSHA, loading it first when this runner has not yet, re-loading after NOSCRIPT.
   * Packed scripts (PACKED_SCRIPTS) get their arguments as one JSON array and answer JSON, parsed here (but for
   * RESP_REPLY_SCRIPTS, whose replies are RESP as usual); `raw` texts follow that array as ARGV[2...] as they are.
   * The call is written with the other commands of its tick (write-coalescing.ts), or at once with `now`.
   */
  async run(name: ScriptName, args: ReadonlyArray<string | number>, now = false, raw?: readonly string[]): Promise<LuaReply> {
    if (PACKED_SCRIPTS.has(name)) {
      const reply = await this.call(name, raw?.length ? [JSON.stringify(args), ...raw] : [JSON.stringify(args)], now);
      return RESP_REPLY_SCRIPTS.has(name) ? reply : (JSON.parse(reply as string) as LuaReply);
    }
    return this.call(name, args, now);
  }

  private async call(name: ScriptName, args: ReadonlyArray<string | number>, now: boolean): Promise<LuaReply> {
    const script = this.entry(name);
    try {
      if (!script.loaded) await (script.loading ??= this.load(script));
      try {
        if (now) uncorkNow(this.redis);
        else corkUntilNextTick(this.redis);
        return await this.redis.evalsha(script.sha, 0, ...args);
      } catch (error) {
        if (!isNoScript(error)) throw error;
        this.reloads += 1;
        script.loaded = false;
        await (script.loading = this.load(script));
        return await this.redis.evalsha(script.sha, 0, ...args);
      }
    } catch (error) {
      // Load again on the next call: the failure may have been the load itself (connection lost).
      script.loading = null;
      script.loaded = false;
      throw toDriverError(error, name);
    }
  }

  private load(script: LoadedScript): Promise<unknown> {
    return this.redis.script('LOAD', script.source).then((sha: unknown) => {
      script.loaded = true;
      return sha;
    });
  }

  private entry(name: ScriptName): LoadedScript {
    const script = this.scripts.get(name);
    if (!script) throw new Error(`Unknown script ${name}`);
    return script;
  }
}

function isNoScript(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith('NOSCRIPT');
}
