/** Event polling and the Server-Sent Events streams: format, filters, keep-alives, resume, slow clients, drain. */
import { afterEach, expect, it } from 'vitest';
import { startGateway, type RunningGateway } from '../src/index.js';
import { describeEachBackend } from './support/backends.js';
import { testHarness, useHarness } from './support/harness.js';
import { claim, push, queueName } from './support/flows.js';
import { events, FrameReader } from './support/sse.js';

describeEachBackend('GET /ojs/v1/events (polling)', (backend) => {
  const h = useHarness(backend);

  it('returns events oldest first with a cursor; after/limit/types/queues/job_types/job_id filter', async () => {
    const q = queueName();
    const a = await push(h, q);
    await push(h, q, { type: 'other.kind' });
    await claim(h, q);
    const all = await h.json('GET', `/ojs/v1/events?queues=${q}`);
    expect(all.res.status).toBe(200);
    expect(all.body.events.map((e: any) => e.type)).toEqual(['job.enqueued', 'job.enqueued', 'job.started']);
    expect(all.body.cursor).toBe(all.body.events[2].id);
    expect(all.body.has_more).toBe(false);
    const page = await h.json('GET', `/ojs/v1/events?queues=${q}&limit=1`);
    expect(page.body).toMatchObject({ has_more: true, cursor: page.body.events[0].id });
    const next = await h.json('GET', `/ojs/v1/events?queues=${q}&after=${page.body.cursor}&limit=1`);
    expect(next.body.events[0].id).toBe(all.body.events[1].id);
    expect((await h.json('GET', `/ojs/v1/events?queues=${q}&types=job.started`)).body.events).toHaveLength(1);
    expect((await h.json('GET', `/ojs/v1/events?queues=${q}&types=job.*&job_types=other.kind`)).body.events).toHaveLength(1);
    expect((await h.json('GET', `/ojs/v1/events?job_id=${a.id}`)).body.events.every((e: any) => e.data.job_id === a.id)).toBe(true);
    expect((await h.json('GET', `/ojs/v1/events?queues=${q}&types=job.enqueued&types=job.started`)).body.events).toHaveLength(3);
    expect((await h.json('GET', '/ojs/v1/events?limit=0')).res.status).toBe(400);
  });
});

describeEachBackend('SSE streams', (backend) => {
  let running: RunningGateway | undefined;
  afterEach(async () => {
    await running?.shutdown();
    running = undefined;
  });

  async function serve(events: Record<string, number> = {}) {
    const { engine, gateway } = await testHarness(backend, { events });
    running = await startGateway(gateway, { port: 0, host: '127.0.0.1' });
    return { engine, url: running.url, gateway };
  }

  async function open(url: string, headers: Record<string, string> = {}): Promise<{ res: Response; reader: FrameReader }> {
    const res = await fetch(url, { headers: { Accept: 'text/event-stream', ...headers } });
    return { res, reader: new FrameReader(res.body!) };
  }

  it('streams events as `event: <type>`, `id: <event id>`, `data: <event JSON>` after an opening comment', async () => {
    const { engine, url } = await serve();
    const q = queueName();
    const { res, reader } = await open(`${url}/ojs/v1/events/stream?queues=${q}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    expect(res.headers.get('ojs-version')).toBe('1.0');
    expect(res.headers.get('x-request-id')).toMatch(/^req_/);
    await reader.until((frames) => frames.some((f) => f.comment === 'connected'));
    expect(reader.frames).toContainEqual({ retry: '2000' });
    await engine.enqueue({ type: 'sse.job', args: [], options: { queue: q } });
    await engine.enqueue({ type: 'sse.job', args: [], options: { queue: queueName() } });
    const [first] = events(await reader.until((frames) => events(frames).length >= 1));
    expect(first!.event).toBe('job.enqueued');
    expect(first!.id).toBe(first!.data.id);
    expect(first!.data).toMatchObject({ specversion: '1.0', type: 'job.enqueued', data: { queue: q } });
    await reader.cancel();
  });

  it('filters by type, job (GET /jobs/:id/events) and queue (GET /queues/:name/events)', async () => {
    const { engine, url } = await serve();
    const q = queueName();
    const job = (await engine.enqueue({ type: 'sse.job', args: [], options: { queue: q } })).job;
    const byJob = await open(`${url}/ojs/v1/jobs/${job.id}/events`);
    const byQueue = await open(`${url}/ojs/v1/queues/${q}/events?types=job.started`);
    const byType = await open(`${url}/ojs/v1/events/stream?types=job.completed&queues=${q}`);
    for (const s of [byJob, byQueue, byType]) await s.reader.until((frames) => frames.some((f) => f.comment === 'connected'));
    await engine.enqueue({ type: 'sse.job', args: [], options: { queue: q } });
    const { jobs } = await engine.fetch({ queues: [q], count: 2, worker_id: 'w' });
    for (const j of jobs) await engine.ack({ job_id: j.id });
    const jobEvents = events(await byJob.reader.until((f) => events(f).length >= 2));
    expect(jobEvents.map((e) => e.event)).toEqual(['job.started', 'job.completed']);
    expect(jobEvents.every((e) => e.data.data.job_id === job.id)).toBe(true);
    expect(events(await byQueue.reader.until((f) => events(f).length >= 2)).map((e) => e.event)).toEqual(['job.started', 'job.started']);
    expect(events(await byType.reader.until((f) => events(f).length >= 2)).map((e) => e.event)).toEqual(['job.completed', 'job.completed']);
    for (const s of [byJob, byQueue, byType]) await s.reader.cancel();
    expect((await fetch(`${url}/ojs/v1/queues/BAD/events`)).status).toBe(400);
  });

  it('sends keep-alive comments while idle', async () => {
    const { url } = await serve({ keepAliveMs: 30 });
    const { reader } = await open(`${url}/ojs/v1/events/stream`);
    await reader.until((frames) => frames.filter((f) => f.comment === 'keep-alive').length >= 2);
    await reader.cancel();
  });

  it('resumes after Last-Event-ID (header or query) from the event log, then continues live', async () => {
    const { engine, url } = await serve();
    const q = queueName();
    for (let i = 0; i < 4; i++) await engine.enqueue({ type: 'sse.job', args: [i], options: { queue: q } });
    const { events: logged } = await engine.pollEvents({ queues: [q] });
    const resumed = await open(`${url}/ojs/v1/events/stream?queues=${q}`, { 'Last-Event-ID': logged[1]!.id });
    const replay = events(await resumed.reader.until((f) => events(f).length >= 2));
    expect(replay.map((e) => e.id)).toEqual([logged[2]!.id, logged[3]!.id]);
    await engine.enqueue({ type: 'sse.job', args: [4], options: { queue: q } });
    const live = events(await resumed.reader.until((f) => events(f).length >= 3));
    expect(live[2]!.data.data.job_type).toBe('sse.job');
    expect(new Set(live.map((e) => e.id)).size).toBe(3);
    const byQuery = await open(`${url}/ojs/v1/events/stream?queues=${q}&last_event_id=${logged[2]!.id}`);
    expect(events(await byQuery.reader.until((f) => events(f).length >= 2)).map((e) => e.id)).toEqual([logged[3]!.id, live[2]!.id]);
    await resumed.reader.cancel();
    await byQuery.reader.cancel();
  });

  it('tells a client whose Last-Event-ID fell out of the window, then replays from the oldest kept event', async () => {
    const { engine, url } = await serve();
    const q = queueName();
    for (let i = 0; i < 3; i++) await engine.enqueue({ type: 'sse.job', args: [i], options: { queue: q } });
    const { events: logged } = await engine.pollEvents({ queues: [q] });
    const unknown = 'evt_0190c8a4-6a2b-7c3d-8e4f-5a6b7c8d9e0f';
    const resumed = await open(`${url}/ojs/v1/events/stream?queues=${q}`, { 'Last-Event-ID': unknown });
    const jobEvents = (f: Parameters<typeof events>[0]) => events(f).filter((e) => e.event !== 'ojs.cursor_expired');
    const frames = await resumed.reader.until((f) => jobEvents(f).length >= 3);
    const notice = frames.find((f) => f.event === 'ojs.cursor_expired');
    expect(notice, JSON.stringify(frames)).toBeDefined();
    expect(notice!.id).toBeUndefined();
    expect(JSON.parse(notice!.data!)).toMatchObject({ last_event_id: unknown });
    expect(frames.indexOf(notice!)).toBeLessThan(frames.findIndex((f) => f.event === 'job.enqueued'));
    expect(jobEvents(frames).map((e) => e.id)).toEqual(logged.map((e) => e.id));
    await resumed.reader.cancel();
    const polled = await engine.pollEvents({ queues: [q], after: unknown });
    expect(polled.cursor_expired).toBe(true);
    expect((await engine.pollEvents({ queues: [q], after: logged[0]!.id })).cursor_expired).toBeUndefined();
  });

  it('drops a client that stops reading once its buffer is full, without slowing the engine', async () => {
    const { engine, gateway } = await testHarness(backend, { events: { bufferSize: 5 } });
    const q = queueName();
    // app.request: the body is a pull stream, so a reader that does not read stalls the writer at once.
    const res = await gateway.request(`/ojs/v1/events/stream?queues=${q}`);
    // Nothing reads the stream until the enqueue has answered: an engine that waited for the client would never
    // answer (no timed assertion: on a loaded machine the enqueue alone can take over a second).
    await engine.enqueueBatch({ jobs: Array.from({ length: 200 }, (_, i) => ({ type: 'sse.job', args: [i], options: { queue: q } })) });
    const frames = await new FrameReader(res.body!).toEnd();
    // The client got what was in flight before the drop, then the stream ended.
    expect(events(frames).length).toBeLessThan(200);
    const healthy = await gateway.request(`/ojs/v1/events/stream?queues=${q}`);
    const reader = new FrameReader(healthy.body!);
    await reader.until((f) => f.some((x) => x.comment === 'connected'));
    await engine.enqueue({ type: 'sse.job', args: [], options: { queue: q } });
    await reader.until((f) => events(f).length === 1);
    await reader.cancel();
  });

  it('drain ends open streams and refuses new ones with 503', async () => {
    const { url, gateway } = await serve();
    const { reader } = await open(`${url}/ojs/v1/events/stream`);
    await reader.until((f) => f.some((x) => x.comment === 'connected'));
    gateway.drain();
    await reader.toEnd();
    expect(reader.ended).toBe(true);
    const refused = await fetch(`${url}/ojs/v1/events/stream`);
    expect(refused.status).toBe(503);
    expect(((await refused.json()) as any).error.code).toBe('backend_unavailable');
  });
});
