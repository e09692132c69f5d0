/** Identifiers: UUIDv7 job ids (the protocol requires v7, not the v4 `crypto.randomUUID()` gives). */
import { V7Generator } from 'uuidv7';

/** Lowercase, hyphenated UUIDv7, as the protocol accepts it. */
export const UUIDV7_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/**
 * Random 32-bit words from the platform CSPRNG, drawn in blocks: ids are minted on the hot path (a job id
 * plus an event id per transition), and the library's default source calls into the CSPRNG every few ids.
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

const generator = new V7Generator(new BlockRandom());
const HEX_HIGH = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0').charCodeAt(0));
const HEX_LOW = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0').charCodeAt(1));
const DASH = 45;

/** Character codes of an id, one reused array per prefix length (ids are made one at a time). */
const codeBuffers = new Map<number, number[]>();

/**
 * Formats the generator's bytes as one flat string. The library's `toString()` appends character by
 * character, which leaves a 36-piece rope (≈800 bytes and 36 objects) behind every id.
 */
function format(prefix: readonly number[]): string {
  const bytes = generator.generate().bytes;
  let codes = codeBuffers.get(prefix.length);
  if (codes === undefined) codeBuffers.set(prefix.length, (codes = new Array<number>(prefix.length + 36).fill(0)));
  let n = 0;
  for (; n < prefix.length; n++) codes[n] = prefix[n]!;
  for (let i = 0; i < 16; i++) {
    const byte = bytes[i]!;
    codes[n++] = HEX_HIGH[byte]!;
    codes[n++] = HEX_LOW[byte]!;
    if (i === 3 || i === 5 || i === 7 || i === 9) codes[n++] = DASH;
  }
  return String.fromCharCode.apply(null, codes);
}

const NO_PREFIX: readonly number[] = [];
const REQUEST_PREFIX = [...'req_'].map((c) => c.charCodeAt(0));
const EVENT_PREFIX = [...'evt_'].map((c) => c.charCodeAt(0));

/**
 * A new UUIDv7 (time-ordered and monotonic within this process, so ids sort by creation).
 * @example newId() // '019a…-7…'
 */
export function newId(): string {
  return format(NO_PREFIX);
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
  return format(REQUEST_PREFIX);
}

/** An event id. */
export function newEventId(): string {
  return format(EVENT_PREFIX);
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
    const head = `evt_${t.slice(0, 8)}-${t.slice(8)}-7${TAG_TEXT}-${hex(TAG_LO & 0xffff, 4)}`;
    for (let k = 0; k < head.length; k++) idCodes[k] = head.charCodeAt(k);
    lastIdMs = ms;
  }
  // The id is written out as one flat string: `head + hex(seq)` would be a two-piece rope that every reader
  // (a transport packing runs of ids, JSON) flattens again, and toString(16) costs more than these 8 digits.
  for (let k = 39, v = seq >>> 0; k >= 32; k--, v >>>= 4) idCodes[k] = HEX_DIGITS[v & 15]!;
  return String.fromCharCode.apply(null, idCodes);
}

let lastIdMs = Number.NaN;
/** Character codes of the last id: its first 32 (the instant's part) are kept for the ids of that instant. */
const idCodes = new Array<number>(40).fill(0);
const HEX_DIGITS = Array.from({ length: 16 }, (_, d) => d.toString(16).charCodeAt(0));

/** The sequence number inside an id made by `eventIdFor` in this process, else undefined. */
export function eventSeqOf(id: string): number | undefined {
  if (id.length !== 40 || !id.startsWith('evt_') || id.slice(18, 27) !== `7${TAG_TEXT}` || id.slice(28, 32) !== hex(TAG_LO & 0xffff, 4)) return undefined;
  const seq = Number.parseInt(id.slice(32), 16);
  return Number.isNaN(seq) ? undefined : seq;
}

/**
 * The milliseconds of an event id (`evt_<uuidv7>`), else undefined: where in a time-ordered log to look for it.
 * @example eventIdMs(eventIdFor(1_700_000_000_000, 1)) // 1700000000000
 */
export function eventIdMs(id: string): number | undefined {
  const hex = id.startsWith('evt_') ? id.slice(4, 12) + id.slice(13, 17) : '';
  if (!/^[0-9a-f]{12}$/.test(hex)) return undefined;
  return Number.parseInt(hex, 16);
}
