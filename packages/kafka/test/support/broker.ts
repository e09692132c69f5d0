/**
 * Test support: a Kafka-protocol broker per test file. Either the project's test broker (librdkafka's mock
 * cluster, built by broker/build.sh) as a child process that takes fault commands, or an external broker
 * named by KAFKA_BROKERS (docker-compose users), which takes none.
 *
 * Without either, tests skip on a laptop (with the reason printed) and fail under CI=true.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { createInterface, type Interface } from 'node:readline';
import { createKafkajsClient } from '../../src/index.js';

const buildScript = fileURLToPath(new URL('../../broker/build.sh', import.meta.url));
const external = process.env.KAFKA_BROKERS?.split(',')
  .map((b) => b.trim())
  .filter(Boolean);

/** The built test broker's path, without building it (`bash broker/build.sh path`). */
function builtBroker(): string | null {
  if (process.env.OJSKIT_KAFKA_MOCK_BROKER) return process.env.OJSKIT_KAFKA_MOCK_BROKER;
  const found = spawnSync('bash', [buildScript, 'path'], { encoding: 'utf8' });
  return found.status === 0 ? found.stdout.trim() : null;
}

const brokerBinary: string | null = external ? null : builtBroker();

/** Why Kafka tests cannot run here, or null when they can. */
const missing: string | null =
  external || brokerBinary ? null : 'the test broker is not built (run `pnpm --filter @ojskit/kafka broker:build`) and KAFKA_BROKERS is not set';

if (missing && process.env.CI === 'true') throw new Error(`Kafka tests cannot run: ${missing} (CI=true requires them)`);
if (missing) console.warn(`[@ojskit/kafka tests] skipped: ${missing}`);

/** True when a broker (built test broker or KAFKA_BROKERS) is available. */
export const kafkaAvailable = missing === null;

/** True when faults can be injected: only the test broker takes commands. */
export const faultsAvailable = brokerBinary !== null;

/** Why fault tests skip with an external broker. */
export const noFaultsReason = 'KAFKA_BROKERS names an external broker, which takes no fault commands';

/** A broker for one test file. */
export interface TestBroker {
  /** Bootstrap addresses, `host:port`. */
  readonly brokers: string[];
  /**
   * Sends one command to the test broker (`down 1`, `err Produce NOT_LEADER_FOR_PARTITION 3`, `help`) and
   * resolves with its `ok ...` reply; rejects on `error ...`. External brokers reject every command.
   */
  command(line: string): Promise<string>;
  /** Creates a topic with an exact partition count (the test broker has no CreateTopics API). */
  topic(name: string, partitions: number, replicationFactor?: number): Promise<void>;
  /** Closes the test broker's stdin, which ends it; waits for the exit. */
  stop(): Promise<void>;
  /** The test broker's process id (benchmarks read its CPU time); absent for an external broker. */
  readonly pid?: number;
}

/** A topic name no other test uses, also on a shared external broker. */
export function uniqueTopic(label: string): string {
  return `ojstest.${label}.${randomUUID().slice(0, 8)}`;
}

export interface StartOptions {
  /** Brokers in the mock cluster (default 3). */
  brokers?: number;
  /**
   * The mock's group.initial.rebalance.delay.ms (its default, like Kafka's, is 3000 ms): how long an empty
   * group waits for more members before the first assignment. Tests keep it short.
   */
  rebalanceDelayMs?: number;
}

/** Starts the test broker (or wraps KAFKA_BROKERS); call `stop()` in afterAll. */
export async function startBroker(options: StartOptions = {}): Promise<TestBroker> {
  if (external) return externalBroker(external);
  if (!brokerBinary) throw new Error(`no Kafka broker: ${missing}`);
  return MockBroker.start(brokerBinary, options);
}

function externalBroker(brokers: string[]): TestBroker {
  return {
    brokers,
    command: (line) => Promise.reject(new Error(`cannot run "${line}": ${noFaultsReason}`)),
    // A real broker takes CreateTopics, so the port's admin creates the exact partition count.
    topic: async (name, partitions, replicationFactor = 1) => {
      const admin = await createKafkajsClient({ brokers, log: () => {} }).admin();
      try {
        await admin.ensureTopics([{ topic: name, partitions, replicationFactor }]);
      } finally {
        await admin.close();
      }
    },
    stop: async () => {},
  };
}

class MockBroker implements TestBroker {
  private readonly replies: Array<{ resolve(line: string): void; reject(error: Error): void }> = [];
  private exited = false;
  private readonly exit: Promise<void>;

  private constructor(
    private readonly child: ChildProcess,
    private readonly lines: Interface,
    readonly brokers: string[],
  ) {
    lines.on('line', (line) => {
      const waiter = this.replies.shift();
      if (!waiter) return;
      if (line.startsWith('ok')) waiter.resolve(line);
      else waiter.reject(new Error(`test broker: ${line}`));
    });
    this.exit = new Promise((resolve) =>
      child.once('exit', () => {
        this.exited = true;
        for (const waiter of this.replies.splice(0)) waiter.reject(new Error('test broker exited'));
        resolve();
      }),
    );
  }

  static async start(binary: string, options: StartOptions): Promise<MockBroker> {
    const args = ['--brokers', String(options.brokers ?? 3), '--rebalance-delay', String(options.rebalanceDelayMs ?? 100)];
    const child = spawn(binary, args, { stdio: ['pipe', 'pipe', 'inherit'] });
    const lines = createInterface({ input: child.stdout! });
    const first = await new Promise<string>((resolve, reject) => {
      lines.once('line', resolve);
      child.once('error', reject);
      child.once('exit', (code) => reject(new Error(`test broker exited with ${code} before printing its address`)));
    });
    const match = /^BOOTSTRAP (\S+)$/.exec(first);
    if (!match) throw new Error(`test broker printed "${first}" instead of BOOTSTRAP host:port,...`);
    return new MockBroker(child, lines, match[1]!.split(','));
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  command(line: string): Promise<string> {
    if (this.exited) return Promise.reject(new Error('test broker exited'));
    return new Promise((resolve, reject) => {
      this.replies.push({ resolve, reject });
      this.child.stdin!.write(`${line}\n`);
    });
  }

  async topic(name: string, partitions: number, replicationFactor = 1): Promise<void> {
    await this.command(`topic ${name} ${partitions} ${replicationFactor}`);
  }

  async stop(): Promise<void> {
    if (this.exited) return;
    this.child.stdin!.end();
    const killed = setTimeout(() => this.child.kill('SIGKILL'), 5_000);
    await this.exit;
    clearTimeout(killed);
    this.lines.close();
  }
}
