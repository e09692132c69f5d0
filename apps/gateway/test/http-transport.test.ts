/** The HTTP transport of @ojskit/client against the gateway: error mapping, auth, URLs, cron status, SSE. */
import { afterEach, describe, expect, it } from 'vitest';
import { OjsError, type OjsEvent } from '@ojskit/core';
import { http, HttpTransport } from '@ojskit/client';
import { createGateway, startGateway, type GatewayEngine, type RunningGateway } from '../src/index.js';
import { describeEachBackend } from './support/backends.js';
import { queueName } from './support/flows.js';
import { testHarness, type HarnessOptions } from './support/harness.js';

const UNKNOWN_ID = '0190c8a4-6a2b-7c3d-8e4f-5a6b7c8d9e0f';

async function eventually(check: () => boolean, what: string, timeoutMs = 3_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function caught(promise: Promise<unknown>): Promise<OjsError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(OjsError);
    return error as OjsError;
  }
  throw new Error('expected the call to fail');
}

describeEachBackend('HttpTransport', (backend) => {
  const servers: RunningGateway[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.shutdown()));
  });

  async function serve(options: HarnessOptions = {}) {
    const { engine, gateway } = await testHarness(backend, options);
    return { engine, url: await listen(gateway) };
  }

  async function listen(gateway: ReturnType<typeof createGateway>): Promise<string> {
    const running = await startGateway(gateway, { port: 0, host: '127.0.0.1' });
    servers.push(running);
    return running.url;
  }

  it('turns error envelopes back into OjsError with code, status, details and retryability', async () => {
    const { url, engine } = await serve();
    const api = http(url);
    const missing = await caught(api.getJob(UNKNOWN_ID));
    expect(missing).toMatchObject({ code: 'not_found', status: 404, retryable: false, details: { resource_type: 'job', resource_id: UNKNOWN_ID } });
    const q = queueName();
    const { job } = await engine.enqueue({ type: 't.job', args: [], options: { queue: q } });
    const conflict = await caught(api.ack({ job_id: job.id }));
    expect(conflict).toMatchObject({ code: 'conflict', status: 409, details: { current_state: 'available' } });
    const invalid = await caught(api.enqueue({ type: 'Bad Type', args: [] }));
    expect(invalid).toMatchObject({ code: 'invalid_request', status: 400 });
    const semantic = await caught(api.enqueue({ type: 'a.b', args: [], options: { retry: { max_attempts: -2 } } }));
    expect(semantic).toMatchObject({ code: 'validation_error', status: 422, type: 'validation_error' });
    expect(await caught(api.enqueue({ type: 'a.b', args: [] }, { tx: {} }))).toMatchObject({ code: 'unsupported' });
  });

  it('an unreachable server is backend_unavailable (503, retryable); a non-OJS error page keeps its status', async () => {
    const { url } = await serve();
    const closed = servers.pop()!;
    await closed.shutdown();
    const down = await caught(http(url).manifest());
    expect(down).toMatchObject({ code: 'backend_unavailable', status: 503, retryable: true });
    const proxy = new HttpTransport('http://proxy.test', { fetch: async () => new Response('<html>Bad Gateway</html>', { status: 502 }) });
    expect(await caught(proxy.manifest())).toMatchObject({ code: 'backend_error', status: 502 });
  });

  it('sends OJS-Version, the bearer key and custom headers; accepts base URLs with /ojs/v1 and trailing slashes', async () => {
    const { url } = await serve({ apiKey: 'k3y' });
    expect(await caught(http(url).listQueues())).toMatchObject({ code: 'unauthenticated', status: 401 });
    for (const base of [url, `${url}/`, `${url}/ojs/v1`, `${url}/ojs/v1/`]) {
      expect((await http(base, { apiKey: 'k3y' }).listQueues()).queues).toBeDefined();
    }
    const seen: Headers[] = [];
    const spy = http(url, {
      apiKey: 'k3y',
      headers: { 'X-Tenant': 'acme' },
      fetch: (input, init) => {
        seen.push(new Headers(init?.headers));
        return fetch(input, init);
      },
    });
    await spy.enqueue({ type: 'a.b', args: [] });
    expect(seen[0]!.get('ojs-version')).toBe('1.0');
    expect(seen[0]!.get('authorization')).toBe('Bearer k3y');
    expect(seen[0]!.get('x-tenant')).toBe('acme');
    expect(seen[0]!.get('content-type')).toBe('application/openjobspec+json');
  });

  it('reports cron `created` from the status (201 new, 200 replaced), health 503 as a report, and batched ACKs', async () => {
    const { url, engine } = await serve();
    const api = http(url);
    const name = queueName('cron');
    expect((await api.registerCron({ name, expression: '0 * * * *', job_template: { type: 'a.b' } })).created).toBe(true);
    expect((await api.registerCron({ name, expression: '5 * * * *', job_template: { type: 'a.b' } })).created).toBe(false);

    const sick: GatewayEngine = new Proxy(engine, {
      get: (target, key, receiver) =>
        key === 'health'
          ? async () => ({ status: 'degraded', version: '1.0', uptime_seconds: 1, backend: { type: 'memory', status: 'unhealthy', error: 'slow' } })
          : Reflect.get(target, key, receiver),
    });
    const sickUrl = await listen(createGateway({ engine: sick, logger: false }));
    expect(await http(sickUrl).health()).toMatchObject({ status: 'degraded', backend: { status: 'unhealthy' } });

    const q = queueName();
    await api.enqueueBatch({
      jobs: [
        { type: 'a.b', args: [1], options: { queue: q } },
        { type: 'a.b', args: [2], options: { queue: q } },
      ],
    });
    const { jobs } = await api.fetch({ queues: [q], count: 2, worker_id: 'w' });
    const { results } = await api.ackMany({ acks: jobs.map((j) => ({ job_id: j.id, worker_id: 'w' })) });
    expect(results.map((r) => r.ok)).toEqual([true, true]);
  });

  it('subscribe: calls after subscribe() see their events; unsubscribe stops delivery', async () => {
    const { url } = await serve();
    const api = http(url);
    const q = queueName();
    const received: OjsEvent[] = [];
    const unsubscribe = api.subscribe({ queues: [q] }, (event) => received.push(event));
    // No delay: the transport holds this call until the stream is open.
    const { job } = await api.enqueue({ type: 'a.b', args: [], options: { queue: q } });
    await eventually(() => received.some((e) => e.subject === job.id), 'job.enqueued');
    unsubscribe();
    await api.enqueue({ type: 'a.b', args: [], options: { queue: q } });
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(received).toHaveLength(1);
  });

  it('subscribe: resumes with Last-Event-ID after the stream drops, without losing or repeating events', async () => {
    const { url, engine } = await serve();
    let streams = 0;
    const lastEventIds: Array<string | null> = [];
    // Cuts the first event stream after its first message, like a proxy timing out.
    const flaky: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      if (!String(input).includes('/events/stream')) return res;
      streams += 1;
      lastEventIds.push(new Headers(init?.headers).get('last-event-id'));
      if (streams > 1) return res;
      const reader = res.body!.getReader();
      let seen = '';
      const cut = new ReadableStream<Uint8Array>({
        async pull(controller) {
          const { done, value } = await reader.read();
          if (done) return controller.close();
          controller.enqueue(value);
          seen += new TextDecoder().decode(value);
          if (seen.includes('\nid: ')) {
            await reader.cancel();
            controller.close();
          }
        },
      });
      return new Response(cut, { status: res.status, headers: res.headers });
    };
    const api = http(url, { fetch: flaky, reconnectMs: 20 });
    const q = queueName();
    const received: OjsEvent[] = [];
    const unsubscribe = api.subscribe({ queues: [q] }, (event) => received.push(event));
    await api.enqueue({ type: 'a.b', args: [0], options: { queue: q } });
    await eventually(() => received.length === 1, 'the first event');
    for (let i = 1; i <= 3; i++) await engine.enqueue({ type: 'a.b', args: [i], options: { queue: q } });
    await eventually(() => received.length === 4, 'every event after the reconnect');
    unsubscribe();
    expect(received.map((e) => (e.data as { job_id: string }).job_id)).toHaveLength(4);
    expect(new Set(received.map((e) => e.id)).size).toBe(4);
    expect(streams).toBe(2);
    expect(lastEventIds).toEqual([null, received[0]!.id]);
  });
});

// The stream is a fake response, no gateway or store involved: runs once.
describe('HttpTransport SSE parsing', () => {
  it('parses SSE framing: CRLF, split chunks, multi-line data, comments, unnamed messages', async () => {
    const event = {
      specversion: '1.0',
      id: 'evt_1',
      type: 'job.enqueued',
      source: 'ojs://t',
      time: 't',
      subject: 's',
      datacontenttype: 'application/json',
      data: { a: 1 },
    };
    const json = JSON.stringify(event);
    const cut = json.indexOf(',"id"') + 1; // between two members, where a newline is legal JSON whitespace
    const text = `retry: 5\r\n: hello\r\n\r\nevent: job.enqueued\r\nid: evt_1\r\ndata: ${json.slice(0, cut)}\r\ndata: ${json.slice(cut)}\r\n\r\n: ping\n\ndata: ${JSON.stringify({ ...event, id: 'evt_2' })}\r\r`;
    const bytes = new TextEncoder().encode(text);
    const fake: typeof fetch = async () =>
      new Response(
        new ReadableStream<Uint8Array>({
          start(controller) {
            // Byte-sized chunks split every CRLF and every multi-byte boundary.
            for (const byte of bytes) controller.enqueue(new Uint8Array([byte]));
            controller.close();
          },
        }),
        { headers: { 'Content-Type': 'text/event-stream' } },
      );
    const received: unknown[] = [];
    const api = new HttpTransport('http://sse.test', { fetch: fake, reconnectMs: 10_000 });
    const unsubscribe = api.subscribe({}, (e) => received.push(e));
    await eventually(() => received.length === 2, 'two events');
    unsubscribe();
    // Multi-line data joins with a newline (JSON whitespace between members).
    expect(received[0]).toEqual(event);
    expect((received[1] as { id: string }).id).toBe('evt_2');
    await api.close();
  });
});
