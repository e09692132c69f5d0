/** A Server-Sent Events reader over a fetch body (Node has no `EventSource`): messages, ids and comments. */

/** One dispatched SSE message. */
export interface SseMessage {
  event: string;
  data: string;
  id: string | undefined;
}

export interface SseCallbacks {
  onMessage(message: SseMessage): void;
  /** Any bytes arrived (the server's opening comment, keep-alives, messages). */
  onActivity?(): void;
  /** The server's `retry:` advice, in ms. */
  onRetry?(ms: number): void;
}

/**
 * Reads `body` until it ends, dispatching messages per the SSE rules: lines end in CRLF, LF or CR; `:` starts a
 * comment; a blank line dispatches the buffered `data` (joined with LF) unless it is empty.
 */
export async function readSse(body: ReadableStream<Uint8Array>, callbacks: SseCallbacks): Promise<void> {
  const decoder = new TextDecoder();
  const reader = body.getReader();
  let buffer = '';
  let data: string[] = [];
  let event = '';
  let id: string | undefined;
  const line = (text: string): void => {
    if (text === '') {
      if (data.length > 0) callbacks.onMessage({ event: event || 'message', data: data.join('\n'), id });
      data = [];
      event = '';
      return;
    }
    if (text.startsWith(':')) return;
    const colon = text.indexOf(':');
    const field = colon === -1 ? text : text.slice(0, colon);
    let value = colon === -1 ? '' : text.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') data.push(value);
    else if (field === 'event') event = value;
    else if (field === 'id' && !value.includes('\0')) id = value;
    else if (field === 'retry' && /^\d+$/.test(value)) callbacks.onRetry?.(Number(value));
  };
  const drain = (final: boolean): void => {
    let start = 0;
    for (let i = 0; i < buffer.length; i++) {
      const ch = buffer[i];
      if (ch !== '\n' && ch !== '\r') continue;
      // A CR at the end of a chunk may be the first half of CRLF: wait for the next chunk (unless there is none).
      if (ch === '\r' && i === buffer.length - 1 && !final) break;
      line(buffer.slice(start, i));
      if (ch === '\r' && buffer[i + 1] === '\n') i++;
      start = i + 1;
    }
    buffer = buffer.slice(start);
  };
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        buffer += decoder.decode();
        drain(true);
        break;
      }
      callbacks.onActivity?.();
      buffer += decoder.decode(value, { stream: true });
      drain(false);
    }
  } finally {
    reader.releaseLock();
  }
}
