/**
 * Runs background services on timers with jitter, each pass under a lease so one engine works at a time. A
 * lease lasts three intervals (at least a second) and is renewed once half of it has gone, not at every pass:
 * an idle engine made a lease call before each of its ~9 passes a second, each a round trip to the store.
 */
import type { EngineContext } from '../context.js';
import type { BackgroundService } from './service.js';

/** Runs `services` until stopped. Errors are reported, never thrown out of a timer. */
export class ServiceRunner {
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>();
  private readonly running = new Set<Promise<unknown>>();
  /** Until when (wall clock) this engine holds each service's lease, as of its last acquisition. */
  private readonly leasedUntil = new Map<string, number>();
  private stopped = true;
  /**
   * Set by the first pass that fails because the store is unreachable, cleared by the next pass that works:
   * an outage is reported once, not by every service on every tick (the driver logs its connection state).
   */
  private outage = false;

  constructor(
    private readonly ctx: EngineContext,
    private readonly services: readonly BackgroundService[],
    private readonly onError: (service: string, err: unknown) => void,
  ) {}

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    for (const service of this.services) this.schedule(service, Math.random() * service.intervalMs(this.ctx));
  }

  private schedule(service: BackgroundService, delay: number): void {
    if (this.stopped) return;
    const timer = setTimeout(() => {
      const pass = this.tick(service).finally(() => {
        this.running.delete(pass);
        const interval = service.intervalMs(this.ctx);
        this.schedule(service, interval * (0.9 + Math.random() * 0.2));
      });
      this.running.add(pass);
    }, delay);
    timer.unref?.();
    this.timers.set(service.name, timer);
  }

  private async tick(service: BackgroundService): Promise<void> {
    try {
      const ttlMs = Math.max(1_000, service.intervalMs(this.ctx) * 3);
      // Leases use wall-clock time: they coordinate live processes, whatever clock the engine runs on.
      const now = Date.now();
      let held = (this.leasedUntil.get(service.name) ?? 0) - now > ttlMs / 2;
      if (!held) {
        held = await this.ctx.driver.leaseAcquire({ name: `service:${service.name}`, owner: this.ctx.settings.instanceId, ttlMs, now });
        if (held) this.leasedUntil.set(service.name, now + ttlMs);
        else this.leasedUntil.delete(service.name);
      }
      if (held) await service.run(this.ctx);
      this.outage = false;
    } catch (err) {
      // a failed pass renews its lease before the next one
      this.leasedUntil.delete(service.name);
      const unreachable = typeof err === 'object' && err !== null && (err as { code?: unknown }).code === 'backend_unavailable';
      if (unreachable && this.outage) return;
      this.outage = unreachable;
      this.onError(service.name, err);
    }
  }

  /** Stops timers and waits for passes in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    this.leasedUntil.clear();
    await Promise.allSettled([...this.running]);
    await Promise.allSettled(this.services.map((s) => this.ctx.driver.leaseRelease({ name: `service:${s.name}`, owner: this.ctx.settings.instanceId })));
  }

  /** One pass of every service, in order, without leases (tests drive time with a manual clock). */
  async runOnce(): Promise<void> {
    for (const service of this.services) await service.run(this.ctx);
  }
}
