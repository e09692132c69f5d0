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
const HEX = Array.from({ length: 256 }, (_, b) => [b.toString(16).padStart(2, '0').charCodeAt(0), b.toString(16).padStart(2, '0').charCodeAt(1)] as const);
const DASH = 45;

/**
 * Formats the generator's bytes as one flat string. The library's `toString()` appends character by
 * character, which leaves a 36-piece rope (≈800 bytes and 36 objects) behind every id.
 */
function format(prefix: readonly number[]): string {
  const bytes = generator.generate().bytes;
  const codes = prefix.slice();
  for (let i = 0; i < 16; i++) {
    const hex = HEX[bytes[i]!]!;
    codes.push(hex[0], hex[1]);
    if (i === 3 || i === 5 || i === 7 || i === 9) codes.push(DASH);
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

/** True for a lowercase UUIDv7 string. */
export function isUuidV7(value: unknown): value is string {
  return typeof value === 'string' && value.length === 36 && UUIDV7_PATTERN.test(value);
}

/** A request id for responses whose caller sent none. */
export function newRequestId(): string {
  return format(REQUEST_PREFIX);
}

/** An event id. */
export function newEventId(): string {
  return format(EVENT_PREFIX);
}
