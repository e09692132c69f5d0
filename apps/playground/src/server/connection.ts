/**
 * One connected OJS server: its HTTP transport (the SDK's), its manifest, and the live model its event
 * stream feeds. Everything the page does to a server goes through here, over the public OJS HTTP API.
 */
import { HttpTransport, http } from '@ojskit/client';
import type { Manifest } from '@ojskit/core';
import { openEventFeed, type FeedStatus } from '../live/event-feed.js';
import { LiveModel } from '../live/live-model.js';
import type { ServerEntry } from './servers.js';

export class Connection {
  readonly api: HttpTransport;
  readonly live = new LiveModel();
  manifest: Manifest | undefined;
  status: FeedStatus = 'connecting';
  /**
   * Times the stream was lost and resumed. A server drops a client that falls behind (its per-client
   * buffer) and replays only part of its log on resume, so moves can be missed: the quiet-queue resync
   * then puts the counts right.
   */
  reconnects = 0;
  error: string | undefined;
  private closeFeed: (() => void) | undefined;
  private resyncTimer: ReturnType<typeof setInterval> | undefined;

  constructor(readonly entry: ServerEntry) {
    this.api = http(entry.url, entry.apiKey ? { apiKey: entry.apiKey } : {});
  }

  /** Reads the manifest, opens the event stream, then seeds the counts (events in between are counted once more at the next resync). */
  async open(): Promise<void> {
    try {
      this.manifest = await this.api.manifest();
    } catch (error) {
      this.error = error instanceof Error ? error.message : String(error);
      this.status = 'error';
      this.live.version += 1;
      return;
    }
    this.closeFeed = openEventFeed(
      this.api,
      this.entry.apiKey,
      (event) => this.live.ingest(event),
      (status) => {
        if (this.status === 'open' && status !== 'open') {
          this.reconnects += 1;
          this.gapAfter ??= this.live.lastEventId;
        }
        if (status === 'open' && this.gapAfter !== undefined) void this.catchUp();
        this.status = status;
        this.live.version += 1;
      },
    );
    await this.resync();
    // Counts follow events exactly; a periodic resync of quiet queues absorbs anything a reconnect missed.
    this.resyncTimer = setInterval(() => {
      if (!this.live.paused) void this.resync();
    }, 5_000);
  }

  /** The last event id before the stream was lost, until the catch-up has read past the gap. */
  private gapAfter: string | undefined;
  private catchingUp = false;

  /**
   * Reads the server's event log from where the stream broke off (`GET /events?after=`), page by page, so
   * no move is missed even when the resumed stream replays less than was lost. Events the stream also
   * delivers are dropped by id.
   */
  private async catchUp(): Promise<void> {
    if (this.catchingUp) return;
    this.catchingUp = true;
    try {
      let after = this.gapAfter;
      for (let page = 0; after !== undefined && page < 50; page++) {
        const { events, cursor, has_more } = await this.api.pollEvents({ after, limit: 1_000 });
        for (const event of events) this.live.ingest(event);
        if (!has_more || !cursor) break;
        after = cursor;
      }
      this.gapAfter = undefined;
    } catch {
      // The log may no longer reach back that far: the quiet-queue resync puts the counts right.
      this.gapAfter = undefined;
    } finally {
      this.catchingUp = false;
    }
  }

  /** Replaces every queue's counts with the server's stats. */
  async resync(): Promise<void> {
    const readAt = this.live.clock();
    try {
      const { queues } = await this.api.listQueues({ limit: 200 } as never);
      await Promise.all(
        queues.map(async (queue) => {
          const stats = await this.api.queueStats(queue.name);
          this.live.seed(queue.name, stats.stats as unknown as Record<string, number>, readAt);
        }),
      );
    } catch {
      // Stats are a convenience on top of the stream; a failure leaves the event-driven counts.
    }
  }

  close(): void {
    this.closeFeed?.();
    if (this.resyncTimer) clearInterval(this.resyncTimer);
    void this.api.close?.();
  }
}
