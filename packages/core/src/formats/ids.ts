/** Identifiers: UUIDv7 job ids (the protocol requires v7, not the v4 `crypto.randomUUID()` gives). */

/** Lowercase, hyphenated UUIDv7, as the protocol accepts it. */
export const UUIDV7_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/**
 * Random 32-bit words from the platform CSPRNG, drawn in blocks: ids are minted on the hot path (one per
 * job), and a call into the CSPRNG every few ids would cost more than the rest of making them.
 */
class BlockRandom {
  private readonly block = new Uint32Array(1024);
  private cursor = this.block.length;

  nextUint32(): number {
    if (this.cursor === this.block.length) {
      crypto.getRandomValues(this.block);
      this.cursor = 0;
    }
    return this.block[this.cursor++]!;
  }
}

const random = new BlockRandom();
const HEX = Array.from({ length: 16 }, (_, d) => d.toString(16).charCodeAt(0));
const DASH = 45;
/** Largest 42-bit counter. */
const MAX_COUNTER = 2 ** 42 - 1;
/** How far back the clock may step before the generator gives up monotonic order (as the `uuidv7` package allows by default). */
const ROLLBACK_ALLOWANCE_MS = 10_000;

/**
 * UUIDv7s made as the `uuidv7` package's `V7Generator` makes them (RFC 9562 method 1: a 42-bit counter,
 * seeded at random each millisecond and incremented within one, in `rand_a` and the top of `rand_b`; 32
 * random bits after it; the last timestamp kept while the clock steps back at most ten seconds, so ids
 * stay ordered), written straight into character codes: the package builds an object and a byte array for
 * every id, and formatting its bytes cost more than the rest of an enqueue's parse.
 */
class V7Ids {
  /** Timestamp of the last id plus one, so that zero means none yet. */
  private timestampBiased = 0;
  private counter = 0;
  /** Character codes of ids per prefix (ids are made one at a time); the timestamp digits change only with the millisecond. */
  private readonly buffers = new Map<readonly number[], { codes: number[]; ms: number }>();

  /** The next id, after `prefix` (one of this module's constant prefixes: a buffer is kept for each). */
  next(prefix: readonly number[]): string {
    const ms = this.tick(Date.now());
    let buffer = this.buffers.get(prefix);
    if (buffer === undefined) {
      const codes = new Array<number>(prefix.length + 36).fill(0);
      for (let i = 0; i < prefix.length; i++) codes[i] = prefix[i]!;
      const p = prefix.length;
      codes[p + 8] = codes[p + 13] = codes[p + 18] = codes[p + 23] = DASH;
      codes[p + 14] = 55; // '7', the version
      this.buffers.set(prefix, (buffer = { codes, ms: -1 }));
    }
    const codes = buffer.codes;
    const p = prefix.length;
    if (buffer.ms !== ms) {
      buffer.ms = ms;
      // 48-bit time as 12 hex digits: the high 16 bits, then the low 32.
      const high = Math.floor(ms / 2 ** 32);
      const low = ms >>> 0;
      for (let i = 0; i < 4; i++) codes[p + i] = HEX[(high >>> (12 - 4 * i)) & 15]!;
      for (let i = 0; i < 4; i++) codes[p + 4 + i] = HEX[(low >>> (28 - 4 * i)) & 15]!;
      for (let i = 0; i < 4; i++) codes[p + 9 + i] = HEX[(low >>> (12 - 4 * i)) & 15]!;
    }
    // rand_a: the counter's top 12 bits; rand_b: variant 10, the counter's low 30 bits, 32 random bits.
    const randA = Math.floor(this.counter / 2 ** 30);
    const randBHi = this.counter % 2 ** 30;
    const randBLo = random.nextUint32();
    codes[p + 15] = HEX[(randA >>> 8) & 15]!;
    codes[p + 16] = HEX[(randA >>> 4) & 15]!;
    codes[p + 17] = HEX[randA & 15]!;
    codes[p + 19] = HEX[8 | (randBHi >>> 28)]!;
    codes[p + 20] = HEX[(randBHi >>> 24) & 15]!;
    codes[p + 21] = HEX[(randBHi >>> 20) & 15]!;
    codes[p + 22] = HEX[(randBHi >>> 16) & 15]!;
    for (let i = 0; i < 4; i++) codes[p + 24 + i] = HEX[(randBHi >>> (12 - 4 * i)) & 15]!;
    for (let i = 0; i < 8; i++) codes[p + 28 + i] = HEX[(randBLo >>> (28 - 4 * i)) & 15]!;
    return String.fromCharCode.apply(null, codes);
  }

  /** Advances the state for an id at `now`; returns the timestamp the id carries. */
  private tick(now: number): number {
    const biased = now + 1;
    if (biased > this.timestampBiased) {
      this.timestampBiased = biased;
      this.resetCounter();
    } else if (biased + ROLLBACK_ALLOWANCE_MS >= this.timestampBiased) {
      // A clock that stepped back a little: keep the last timestamp and count on.
      this.counter++;
      if (this.counter > MAX_COUNTER) {
        this.timestampBiased++;
        this.resetCounter();
      }
    } else {
      // A clock that stepped back far: start over from it, giving up the order.
      this.timestampBiased = biased;
      this.resetCounter();
    }
    return this.timestampBiased - 1;
  }

  private resetCounter(): void {
    this.counter = random.nextUint32() * 0x400 + (random.nextUint32() & 0x3ff);
  }
}

const ids = new V7Ids();

const NO_PREFIX: readonly number[] = [];
const REQUEST_PREFIX = [...'req_'].map((c) => c.charCodeAt(0));
const EVENT_PREFIX = [...'evt_'].map((c) => c.charCodeAt(0));

/**
 * A new UUIDv7 (time-ordered and monotonic within this process, so ids sort by creation).
 * @example newId() // '019a…-7…'
 */
export function newId(): string {
  return ids.next(NO_PREFIX);
}

/**
 * Which character codes (below 128) each of the 36 positions of a UUIDv7 accepts, 128 entries a position:
 * lowercase hex digits, the four dashes, the version `7`, the variant `8`-`b`.
 */
const UUIDV7_CHARS = (() => {
  const table = new Uint8Array(36 * 128);
  for (let i = 0; i < 36; i++) {
    const allowed = i === 8 || i === 13 || i === 18 || i === 23 ? '-' : i === 14 ? '7' : i === 19 ? '89ab' : '0123456789abcdef';
    for (const c of allowed) table[i * 128 + c.charCodeAt(0)] = 1;
  }
  return table;
})();

/** True for a lowercase UUIDv7 string. */
export function isUuidV7(value: unknown): value is string {
  if (typeof value !== 'string' || value.length !== 36) return false;
  // `UUIDV7_PATTERN`, checked by hand with one table lookup a character: every ACK checks its id, and the
  // regex (or comparisons by character class) cost more than the rest of it.
  for (let i = 0; i < 36; i++) {
    const c = value.charCodeAt(i);
    if (c > 127 || UUIDV7_CHARS[i * 128 + c] === 0) return false;
  }
  return true;
}

/** A request id for responses whose caller sent none. */
export function newRequestId(): string {
  return ids.next(REQUEST_PREFIX);
}

/** An event id. */
export function newEventId(): string {
  return ids.next(EVENT_PREFIX);
}

// Event ids are derived, not drawn: a job event is stored compactly and gets its id only when someone reads it,
// so the id must be a pure function of what is stored. It is a valid UUIDv7 whose 74 random bits are a
// per-process random tag (42 bits) and the event's sequence number in this process (32 bits): ids from one
// process sort by time then sequence, and two processes collide only if their tags do (1 in 2^42).
const TAG_HI = crypto.getRandomValues(new Uint32Array(1))[0]! & 0xfff; // 12 bits → rand_a
const TAG_LO = crypto.getRandomValues(new Uint32Array(1))[0]! & 0x3fffffff; // 30 bits → top of rand_b
function hex(value: number, width: number): string {
  return value.toString(16).padStart(width, '0');
}

/** `rand_a` and the variant group: `xxx-yyyy` with y's top bits `10`. */
const TAG_TEXT = `${hex(TAG_HI, 3)}-${hex(0x8000 | (TAG_LO >>> 16), 4)}`;

/**
 * The id of this process's event number `seq` that happened at `ms`: `evt_<uuidv7>`.
 * @example eventIdFor(Date.now(), 42)
 */
export function eventIdFor(ms: number, seq: number): string {
  // The events of one transition batch share their instant: its part of the id is worked out once.
  if (ms !== lastIdMs) {
    const t = hex(Math.max(0, Math.floor(ms)), 12);
    // rand_b = variant(2) | TAG_LO(30) | seq(32): the first 4 hex digits hold variant + 14 tag bits, the rest 16 tag bits + seq.
    lastIdHead = `evt_${t.slice(0, 8)}-${t.slice(8)}-7${TAG_TEXT}-${hex(TAG_LO & 0xffff, 4)}`;
    lastIdMs = ms;
  }
  return lastIdHead + hex(seq >>> 0, 8);
}

let lastIdMs = Number.NaN;
let lastIdHead = '';

/** The sequence number inside an id made by `eventIdFor` in this process, else undefined. */
export function eventSeqOf(id: string): number | undefined {
  if (id.length !== 40 || !id.startsWith('evt_') || id.slice(18, 27) !== `7${TAG_TEXT}` || id.slice(28, 32) !== hex(TAG_LO & 0xffff, 4)) return undefined;
  const seq = Number.parseInt(id.slice(32), 16);
  return Number.isNaN(seq) ? undefined : seq;
}
