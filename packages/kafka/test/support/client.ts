/** Test support: a port client on a test broker whose quiet-log lines are kept for assertions. */
import { createKafkajsClient, type KafkaClient, type KafkajsClientOptions } from '../../src/index.js';
import type { TestBroker } from './broker.js';

export interface TestClient {
  client: KafkaClient;
  /** Every line the quiet log printed, in order. */
  log: string[];
}

export function testClient(broker: TestBroker, options: Partial<KafkajsClientOptions> = {}): TestClient {
  const log: string[] = [];
  const client = createKafkajsClient({
    brokers: broker.brokers,
    clientId: 'ojskit-test',
    log: (line) => log.push(line),
    ...options,
  });
  return { client, log };
}
