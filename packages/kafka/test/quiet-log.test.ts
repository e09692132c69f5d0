/** The quiet log's folding rules, on kafkajs-shaped entries (the fault tests check it against real failures). */
import { describe, expect, it } from 'vitest';
import type { LogEntry } from 'kafkajs';
import { QuietKafkaLog } from '../src/index.js';

const entry = (namespace: string, label: string, log: { message: string } & Record<string, unknown>): LogEntry => ({
  namespace,
  level: label === 'ERROR' ? 1 : label === 'WARN' ? 2 : 4,
  label,
  log: { timestamp: '', logger: 'kafkajs', ...log },
});

describe('QuietKafkaLog', () => {
  it('prints one line per unreachable broker and one per distinct error, never retries or stacks', () => {
    const lines: string[] = [];
    const log = new QuietKafkaLog((line) => lines.push(line));
    const refused = { message: 'Connection error: connect ECONNREFUSED 127.0.0.1:9092', broker: '127.0.0.1:9092', stack: 'Error\n    at x' };
    log.accept(entry('Connection', 'ERROR', refused));
    log.accept(entry('Connection', 'ERROR', refused));
    // The line quotes the entry's own message; only the broker field decides which broker it is about.
    log.accept(entry('Connection', 'ERROR', { ...refused, broker: '127.0.0.1:9093' }));
    log.accept(entry('Producer', 'ERROR', { message: 'Failed to send messages: Closed connection', retryCount: 0 }));
    log.accept(entry('Producer', 'ERROR', { message: 'Failed to send messages: Closed connection', retryCount: 3 }));
    log.accept(entry('Consumer', 'ERROR', { message: 'Restarting the consumer in 1200ms' }));
    log.accept(entry('Consumer', 'ERROR', { message: 'Restarting the consumer in 2750ms' }));
    log.accept(entry('Connection', 'ERROR', { message: 'Response Produce(key: 0, version: 7)', broker: 'b:1', error: 'not the leader' }));
    expect(lines).toEqual([
      'kafka: broker 127.0.0.1:9092 unreachable (Connection error: connect ECONNREFUSED 127.0.0.1:9092)',
      'kafka: broker 127.0.0.1:9093 unreachable (Connection error: connect ECONNREFUSED 127.0.0.1:9092)',
      'kafka: error Producer: Failed to send messages: Closed connection',
      'kafka: error Consumer: Restarting the consumer in 1200ms',
      'kafka: error Connection: Response Produce(key: 0, version: 7): not the leader',
    ]);
    expect(log.failing).toBe(true);
  });

  it('ends a failure episode with one line, after which the same failure is reported again', () => {
    const lines: string[] = [];
    const log = new QuietKafkaLog((line) => lines.push(line));
    log.working();
    expect(lines).toEqual([]);
    const refused = { message: 'Connection error: connect ECONNREFUSED h:1', broker: 'h:1' };
    log.accept(entry('Connection', 'ERROR', refused));
    log.working();
    log.working();
    log.accept(entry('Connection', 'ERROR', refused));
    expect(lines).toEqual([
      'kafka: broker h:1 unreachable (Connection error: connect ECONNREFUSED h:1)',
      'kafka: working again (h:1 reachable)',
      'kafka: broker h:1 unreachable (Connection error: connect ECONNREFUSED h:1)',
    ]);
  });
});
