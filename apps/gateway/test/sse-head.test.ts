/** HEAD on an event stream (issue 25, found by the fuzz model): headers only, no subscription left behind. */
import { expect, it } from 'vitest';
import { MemoryDriver } from '@ojskit/memory';
import { createGateway } from '../src/index.js';

// Memory only: what leaked was a subscription in the engine's hub, the same whatever the store.
it('HEAD on the event streams answers the headers and leaves no engine subscription behind', async () => {
  const gateway = createGateway({ backend: new MemoryDriver(), logger: false, startServices: false });
  try {
    // The hub's listener set is private; it is the only place a leaked subscription shows.
    const listeners = (): number => (gateway.engine as unknown as { ctx: { hub: { listeners: Set<unknown> } } }).ctx.hub.listeners.size;
    const before = listeners();
    for (const path of ['/ojs/v1/events/stream', '/ojs/v1/queues/default/events', '/ojs/v1/jobs/0190c8a4-6a2b-7c3d-8e4f-5a6b7c8d9e0f/events']) {
      const res = await gateway.request(path, { method: 'HEAD' });
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type'), path).toBe('text/event-stream');
      expect(res.headers.get('ojs-version'), path).toBe('1.0');
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(listeners()).toBe(before);
  } finally {
    await gateway.close();
  }
});
