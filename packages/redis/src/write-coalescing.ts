/**
 * One socket write per tick for the commands the driver sends. ioredis writes each command to the socket as
 * it is issued; its auto-pipelining batches them instead, but builds a `Pipeline` (a full command interface)
 * for every tick's batch, a quarter of what an idle worker allocates per job. Corking the socket until the
 * next tick gets the same single write for the price of a flag.
 */
import type { Redis } from 'ioredis';

interface Corkable {
  writable: boolean;
  cork(): void;
  uncork(): void;
}

const corked = new WeakSet<Corkable>();

function uncork(stream: Corkable): void {
  corked.delete(stream);
  stream.uncork();
}

/**
 * Holds back writes to `redis`'s socket until the current tick's commands are all issued (`process.nextTick`,
 * which runs after the promise callbacks queued so far). Call it before issuing a command; a connection that
 * is not ready queues commands itself and is left alone.
 */
export function corkUntilNextTick(redis: Redis): void {
  if (redis.status !== 'ready') return;
  const stream = (redis as unknown as { stream?: Corkable }).stream;
  // A connector whose stream cannot cork (not a net/tls socket) just writes as ioredis does.
  if (stream === undefined || !stream.writable || typeof stream.cork !== 'function' || corked.has(stream)) return;
  corked.add(stream);
  stream.cork();
  process.nextTick(uncork, stream);
}

/**
 * Writes now what `corkUntilNextTick` held back, so that the command issued next leaves at once (in order,
 * after them): for a batch the backend should start on while this process is still busy.
 */
export function uncorkNow(redis: Redis): void {
  const stream = (redis as unknown as { stream?: Corkable }).stream;
  if (stream !== undefined && corked.has(stream)) uncork(stream);
}
