/**
 * The server's event stream. Without an API key the browser's native `EventSource` reads it (it reconnects
 * with `Last-Event-ID` by itself); `EventSource` cannot send an `Authorization` header, so with a key the
 * client SDK's fetch-based SSE reader (`HttpTransport.subscribe`) reads it instead.
 */
import { EVENT_TYPES, type OjsEvent } from '@ojskit/core';
import type { HttpTransport } from '@ojskit/client';

export type FeedStatus = 'connecting' | 'open' | 'error';

export function openEventFeed(
  api: HttpTransport,
  apiKey: string | undefined,
  onEvent: (event: OjsEvent) => void,
  onStatus: (status: FeedStatus) => void,
): () => void {
  onStatus('connecting');
  if (apiKey) {
    const stop = api.subscribe({}, onEvent);
    onStatus('open');
    return stop;
  }
  const source = new EventSource(`${api.baseUrl}/ojs/v1/events/stream`);
  const listener = (message: MessageEvent<string>): void => {
    try {
      onEvent(JSON.parse(message.data) as OjsEvent);
    } catch {
      // A malformed frame from another server is skipped: the stream itself stays usable.
    }
  };
  for (const type of EVENT_TYPES) source.addEventListener(type, listener);
  source.onmessage = listener;
  source.onopen = () => onStatus('open');
  source.onerror = () => onStatus(source.readyState === EventSource.CLOSED ? 'error' : 'connecting');
  return () => source.close();
}
