/** Runs the README's example as a separate process against the test broker, so the documented code cannot rot. */
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kafkaAvailable, startBroker, uniqueTopic, type TestBroker } from './support/broker.js';
import { REDIS_URL, redisAvailable, uniqueNamespace } from './support/stores.js';

const readme = readFileSync(fileURLToPath(new URL('../README.md', import.meta.url)), 'utf8');
/** The README's TypeScript examples, each found by what it uses. */
const blocks = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!);

describe.skipIf(!kafkaAvailable)('README example', () => {
  let broker: TestBroker;
  beforeAll(async () => {
    broker = await startBroker();
  });
  afterAll(async () => {
    await broker?.stop();
  });

  it('produces, consumes and commits, printing the record', () => {
    const code = blocks.find((b) => b.includes('createKafkajsClient'));
    expect(code).toBeTruthy();
    const file = fileURLToPath(new URL(`./readme-example.${process.pid}.tmp.ts`, import.meta.url));
    writeFileSync(file, code!);
    try {
      const run = spawnSync(process.execPath, ['--conditions=@ojskit/source', '--import', 'tsx', file], {
        env: { ...process.env, KAFKA_BROKERS: broker.brokers.join(','), TOPIC: uniqueTopic('readme') },
        encoding: 'utf8',
        timeout: 30_000,
      });
      expect(run.stderr).toBe('');
      expect(run.stdout.trim()).toBe('job-1 email.send {"id":"job-1"}');
    } finally {
      rmSync(file, { force: true });
    }
  }, 40_000);

  it.skipIf(!redisAvailable)(
    'the driver example runs a job to completion through the log (store = Redis)',
    () => {
      const code = blocks.find((b) => b.includes('createKafkaDriver'));
      expect(code).toBeTruthy();
      const file = fileURLToPath(new URL(`./readme-driver.${process.pid}.tmp.ts`, import.meta.url));
      writeFileSync(file, code!);
      try {
        const run = spawnSync(process.execPath, ['--conditions=@ojskit/source', '--import', 'tsx', file], {
          env: { ...process.env, KAFKA_BROKERS: broker.brokers.join(','), PREFIX: uniqueNamespace(), REDIS_URL },
          encoding: 'utf8',
          timeout: 60_000,
        });
        expect(run.stderr).toBe('');
        expect(run.stdout.trim()).toBe("completed { sent: 'ada@example.com' }");
      } finally {
        rmSync(file, { force: true });
      }
    },
    70_000,
  );
});
