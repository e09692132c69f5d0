/**
 * A quiet log for kafkajs: one line when a broker becomes unreachable and one when the client works again,
 * instead of kafkajs's error entry (with a stack trace) for every retry of every request.
 */
import { logLevel as KafkajsLevel, type LogEntry, type logCreator } from 'kafkajs';

/** Where the quiet log's lines go (default: stderr). */
export type KafkaLogSink = (line: string) => void;

/** Which kafkajs entries are considered: `info` adds group joins, start/stop and pause/resume. */
export type KafkaLogLevel = 'error' | 'warn' | 'info';

const levels: Record<KafkaLogLevel, KafkajsLevel> = {
  error: KafkajsLevel.ERROR,
  warn: KafkajsLevel.WARN,
  info: KafkajsLevel.INFO,
};

const connectionFailure = /^Connection (error|timeout)/;

const stderrSink: KafkaLogSink = (line) => {
  process.stderr.write(`${line}\n`);
};

/**
 * Folds kafkajs's log entries into state changes. A failure episode (a broker down, a produce that keeps
 * failing) yields one line per broker and one per distinct message; retries of it yield none, and stack
 * traces are never printed. The port calls {@link QuietKafkaLog.working} after an operation succeeds,
 * which ends the episode with one "reachable again" line.
 *
 * @example
 * const log = new QuietKafkaLog((line) => logger.warn(line));
 * const client = createKafkajsClient({ brokers: ['127.0.0.1:9092'], log });
 */
export class QuietKafkaLog {
  /** Brokers seen failing in the current episode, with the first error for each. */
  private readonly unreachable = new Map<string, string>();
  /** Messages (digits folded) already reported in the current episode. */
  private readonly reported = new Set<string>();

  constructor(
    private readonly sink: KafkaLogSink = stderrSink,
    readonly level: KafkaLogLevel = 'warn',
    private readonly prefix = 'kafka',
  ) {}

  /** The kafkajs log level matching {@link level}. */
  get kafkajsLevel(): KafkajsLevel {
    return levels[this.level];
  }

  /** For `new Kafka({ logCreator })`. */
  readonly logCreator: logCreator = () => (entry: LogEntry) => this.accept(entry);

  /** Takes one kafkajs entry; prints at most one line for it. */
  accept({ namespace, label, log }: LogEntry): void {
    const message = String(log.message);
    const broker = typeof log.broker === 'string' ? log.broker : undefined;
    if (broker && connectionFailure.test(message)) {
      if (this.unreachable.has(broker)) return;
      this.unreachable.set(broker, message);
      this.sink(`${this.prefix}: broker ${broker} unreachable (${message})`);
      return;
    }
    // Retries of a failure already reported say nothing new.
    if (typeof log.retryCount === 'number' && log.retryCount > 0) return;
    const key = `${namespace}:${message.replace(/\d+/g, '#')}`;
    if (this.reported.has(key)) return;
    if (label !== 'INFO') this.reported.add(key);
    const cause = typeof log.error === 'string' && !message.includes(log.error) ? `: ${log.error}` : '';
    this.sink(`${this.prefix}: ${label.toLowerCase()} ${namespace ? `${namespace}: ` : ''}${message}${cause}`);
  }

  /** Prints one line of the port's own (a recovery step kafkajs does not log). */
  note(line: string): void {
    this.sink(`${this.prefix}: ${line}`);
  }

  /** An operation succeeded: ends the failure episode, if any, with one line. */
  working(): void {
    if (this.unreachable.size === 0 && this.reported.size === 0) return;
    const brokers = [...this.unreachable.keys()];
    this.unreachable.clear();
    this.reported.clear();
    this.sink(`${this.prefix}: working again${brokers.length > 0 ? ` (${brokers.join(', ')} reachable)` : ''}`);
  }

  /** True while a failure episode is open (brokers unreachable or errors reported since the last success). */
  get failing(): boolean {
    return this.unreachable.size > 0 || this.reported.size > 0;
  }
}
