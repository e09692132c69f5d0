/**
 * Whether any other process listens to a cross-process event transport, for transports that stop sending
 * events nobody would read (a process alone on its Redis or database spent a sixth of its throughput packing
 * and publishing them).
 *
 * The transport counts its channel's listeners its own way (Redis: the receivers a PUBLISH reports; Postgres:
 * the sessions holding a shared advisory lock) and reports each count here; a count of one, its own, that no
 * hello overtook, turns publishing off. A process that starts listening says hello on the channel; every
 * process that hears it publishes again and answers, and the newcomer waits for those answers before it calls
 * itself ready, so events published after that reach it. While quiet, a transport still publishes once every
 * PRESENCE_PROBE_MS and so counts again (a hello it missed, a listener that says none).
 *
 * Control messages are JSON objects, which versions without them skip: their event messages are arrays or
 * objects of other keys.
 */

/** While no other process listens, one publish this often still counts the listeners again. */
export const PRESENCE_PROBE_MS = 1_000;

/** How long a newcomer waits for the answers to its hello (a listener that is not ojskit never answers). */
export const HELLO_ANSWER_WAIT_MS = 250;

/** A control message on an event channel: `hello` from a process that starts listening, `heard` its answer. */
export interface PresenceMessage {
  hello?: string;
  heard?: string;
}

/** The text of a hello from transport `id`. */
export function helloMessage(id: string): string {
  return JSON.stringify({ hello: id } satisfies PresenceMessage);
}

/** The text of the answer to a hello from transport `id`. */
export function heardMessage(id: string): string {
  return JSON.stringify({ heard: id } satisfies PresenceMessage);
}

/**
 * Tracks, for one transport, whether to send events to other processes, and speaks its side of the handshake.
 *
 * @example
 * const presence = new ListenerPresence(transportId);
 * publish(presence.hello());                        // once subscribed; then await presence.answersFrom(listeners - 1)
 * const control = presenceMessage(JSON.parse(text)); // for each message from the channel
 * if (control) presence.handle(control, publish);   // answers hellos, counts answers
 * if (presence.publishing) publish(events);         // then presence.counted(receivers, mark, subscribed)
 */
export class ListenerPresence {
  private othersListen = true;
  private probeAt = 0;
  private hellos = 0;
  private answers = 0;
  private onAnswer: (() => void) | undefined;

  /**
   * `id`: the transport's own id, in its hello and in the answers meant for it. `enabled` false: always
   * publish (a transport whose count cannot see every listener); the handshake still runs, so other
   * processes count this one.
   */
  constructor(
    private readonly id: string,
    readonly enabled = true,
    private readonly now: () => number = Date.now,
  ) {}

  /** The hello to say on the channel once subscribed; answers count from now. */
  hello(): string {
    this.answers = 0;
    return helloMessage(this.id);
  }

  /** A control message from the channel: a hello of another process is answered through `answer`. */
  handle(message: PresenceMessage, answer: (text: string) => void): void {
    if (message.hello !== undefined && message.hello !== this.id) {
      this.heardHello();
      answer(heardMessage(message.hello));
    } else if (message.heard === this.id) this.answered();
  }

  /** Whether events should go to other processes now: someone else listens, or a probe is due. */
  get publishing(): boolean {
    return !this.enabled || this.othersListen || this.now() >= this.probeAt;
  }

  /** Taken when a count begins, handed to `counted`: a hello heard meanwhile makes that count stale. */
  get mark(): number {
    return this.hellos;
  }

  /**
   * `listeners` (this process's own included) were counted, the count having begun at `mark`; `hearing`: this
   * process's listening connection was up, so it would have heard a hello.
   */
  counted(listeners: number, mark: number, hearing: boolean): void {
    if (!this.enabled) return;
    if (hearing && listeners <= 1 && mark === this.hellos) {
      this.othersListen = false;
      this.probeAt = this.now() + PRESENCE_PROBE_MS;
    } else if (listeners > 1 || !hearing) this.othersListen = true;
  }

  /** This process's listening connection went down: it cannot hear hellos, so it publishes. */
  deaf(): void {
    this.othersListen = true;
  }

  /** Another process said hello: publish from now on. */
  private heardHello(): void {
    this.hellos += 1;
    this.othersListen = true;
  }

  /** An answer to this process's hello arrived. */
  private answered(): void {
    this.answers += 1;
    this.onAnswer?.();
  }

  /** Resolves once `expected` answers to this process's hello arrived, or after HELLO_ANSWER_WAIT_MS. */
  answersFrom(expected: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.onAnswer = undefined;
        resolve();
      };
      const timer = setTimeout(done, HELLO_ANSWER_WAIT_MS);
      (timer as { unref?: () => void }).unref?.();
      this.onAnswer = () => {
        if (this.answers >= expected) done();
      };
      this.onAnswer();
    });
  }
}

/** The control message in a parsed channel message, if it is one. */
export function presenceMessage(value: unknown): PresenceMessage | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const { hello, heard } = value as PresenceMessage;
  if (typeof hello === 'string') return { hello };
  if (typeof heard === 'string') return { heard };
  return undefined;
}
