/**
 * Frame coalescing: transitions arrive far faster than a screen can draw tokens. Every transition is
 * counted (counts stay exact); per frame at most `maxTokens` are drawn, chosen uniformly at random from
 * those since the last frame (reservoir sampling), so a burst on one edge is as visible as its share.
 */
import type { TransitionEvent } from './transition-event.js';

export interface Frame {
  /** Transitions to draw as tokens this frame. */
  readonly tokens: readonly TransitionEvent[];
  /** Transitions that arrived since the previous frame (drawn or not). */
  readonly arrived: number;
}

export class FrameCoalescer {
  private reservoir: TransitionEvent[] = [];
  private arrived = 0;

  /** @param maxTokens most tokens handed out per frame. @param random source in [0, 1) (injected in tests). */
  constructor(
    private readonly maxTokens: number,
    private readonly random: () => number = Math.random,
  ) {
    if (!(Number.isInteger(maxTokens) && maxTokens > 0)) throw new Error('FrameCoalescer: maxTokens must be a positive integer.');
  }

  /** Offers one transition; O(1) and allocation-free once the reservoir is full. */
  push(event: TransitionEvent): void {
    this.arrived += 1;
    if (this.reservoir.length < this.maxTokens) {
      this.reservoir.push(event);
      return;
    }
    const slot = Math.floor(this.random() * this.arrived);
    if (slot < this.maxTokens) this.reservoir[slot] = event;
  }

  /** Hands out this frame's sample and starts the next frame. */
  takeFrame(): Frame {
    const frame: Frame = { tokens: this.reservoir, arrived: this.arrived };
    this.reservoir = [];
    this.arrived = 0;
    return frame;
  }
}
