/**
 * Two gateways over one Redis (issue 25 item 11): SSE on gateway B shows transitions made through gateway A,
 * and a gateway that started later resumes a client's Last-Event-ID from the store's event stream, with no
 * gap and no expired-cursor notice.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { Engine } from '@ojskit/core';
import { createRedisDriver, type RedisDriver } from '@ojskit/redis';
import { createGateway, type Gateway } from '../src/index.js';
import { REDIS, REDIS_URL } from './support/backends.js';
import { OJS } from './support/harness.js';
import { events, FrameReader } from './support/sse.js';

interface Node {
  driver: RedisDriver;
  engine: Engine;
  gateway: Gateway;
}

/** Generous: the events cross Redis between two engines, on a machine other test suites load too. */
const WAIT_MS = 20_000;

const nodes: Node[] = [];
afterEach(async () => {
  const opened = nodes.splice(0);
  for (const { gateway, engine } of opened) {
    await gateway.close();
    await engine.stop();
  }
  await opened[0]?.driver.reset();
  for (const { driver } of opened) await driver.close();
});

async function node(prefix: string): Promise<Node> {
  const driver = createRedisDriver(REDIS_URL, { prefix, checkMemoryPolicy: false });
  await driver.events.ready();
  const engine = new Engine({ driver, onError: () => undefined });
  const opened = { driver, engine, gateway: createGateway({ engine, driver, logger: false }) };
  nodes.push(opened);
  return opened;
}

async function stream(gateway: Gateway, query: string, headers: Record<string, string> = {}): Promise<FrameReader> {
  const res = await gateway.request(`/ojs/v1/events/stream?${query}`, { headers: { Accept: 'text/event-stream', ...headers } });
  expect(res.status).toBe(200);
  return new FrameReader(res.body!);
}

describe.skipIf(!REDIS.available)('two gateways over one Redis', () => {
  it("streams on B what was done through A, and a gateway started later resumes A's event ids from the store", async () => {
    const prefix = `ojstest:gw2:${randomUUID().slice(0, 8)}`;
    const a = await node(prefix);
    const b = await node(prefix);
    const onB = await stream(b.gateway, 'queues=shared');
    await onB.until((frames) => frames.some((f) => f.comment === 'connected'), WAIT_MS);

    const res = await a.gateway.request('/ojs/v1/jobs/batch', {
      method: 'POST',
      headers: { 'Content-Type': OJS },
      body: JSON.stringify({ jobs: Array.from({ length: 6 }, (_, i) => ({ type: 'shared.job', args: [i], options: { queue: 'shared' } })) }),
    });
    expect(res.status).toBe(201);
    const jobIds = ((await res.json()) as { jobs: Array<{ id: string }> }).jobs.map((j) => j.id);
    const atA = (await a.engine.pollEvents({ queues: ['shared'] })).events;
    expect(atA.map((e) => e.subject)).toEqual(jobIds);

    const seenOnB = events(await onB.until((frames) => events(frames).length >= 6, WAIT_MS));
    expect(seenOnB.map((e) => e.id)).toEqual(atA.map((e) => e.id));
    await onB.cancel();

    // C never saw these events: its window is empty, the stream has them.
    const c = await node(prefix);
    const resumed = await stream(c.gateway, 'queues=shared', { 'Last-Event-ID': atA[1]!.id });
    const frames = await resumed.until((f) => events(f).length >= 4, WAIT_MS);
    expect(frames.some((f) => f.event === 'ojs.cursor_expired')).toBe(false);
    expect(events(frames).map((e) => e.id)).toEqual(atA.slice(2).map((e) => e.id));
    await resumed.cancel();
    const polled = await c.gateway.request(`/ojs/v1/events?queues=shared&after=${atA[3]!.id}`);
    const body = (await polled.json()) as { events: Array<{ id: string }>; cursor_expired?: boolean; has_more: boolean };
    expect(body.cursor_expired).toBeUndefined();
    expect(body.events.map((e) => e.id)).toEqual(atA.slice(4).map((e) => e.id));
  }, 60_000);
});
