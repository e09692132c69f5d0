/** Reading a raw SSE response in tests: frames (messages and comments) as they arrive. */

export interface Frame {
  comment?: string;
  event?: string;
  id?: string;
  data?: string;
  retry?: string;
}

/** Splits SSE text into frames (blank-line separated); comment-only frames keep their text. */
export function parseFrames(text: string): Frame[] {
  return text
    .split('\n\n')
    .filter((block) => block.length > 0)
    .flatMap((block) => {
      const frame: Frame = {};
      const comments: Frame[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) comments.push({ comment: line.slice(1).trim() });
        else {
          const i = line.indexOf(':');
          const key = line.slice(0, i) as keyof Frame;
          const value = line.slice(i + 1).replace(/^ /, '');
          frame[key] = frame[key] === undefined ? value : `${frame[key]}\n${value}`;
        }
      }
      return Object.keys(frame).length > 0 ? [...comments, frame] : comments;
    });
}

/** Reads frames from a response body until `until` holds for the frames seen so far (or the stream ends). */
export class FrameReader {
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly decoder = new TextDecoder();
  private text = '';
  ended = false;

  constructor(body: ReadableStream<Uint8Array>) {
    this.reader = body.getReader();
  }

  get frames(): Frame[] {
    return parseFrames(this.text);
  }

  async until(check: (frames: Frame[]) => boolean, timeoutMs = 3_000): Promise<Frame[]> {
    const deadline = Date.now() + timeoutMs;
    while (!check(this.frames)) {
      if (this.ended) throw new Error(`stream ended before the condition held; frames: ${JSON.stringify(this.frames).slice(0, 500)}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out; frames: ${JSON.stringify(this.frames).slice(0, 500)}`);
      const chunk = await Promise.race([this.reader.read(), new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), left))]);
      if (chunk === 'timeout') continue;
      if (chunk.done) this.ended = true;
      else this.text += this.decoder.decode(chunk.value, { stream: true });
    }
    return this.frames;
  }

  /** Reads until the stream ends. */
  async toEnd(timeoutMs = 3_000): Promise<Frame[]> {
    try {
      await this.until(() => this.ended, timeoutMs);
    } catch (error) {
      if (!this.ended) throw error;
    }
    return this.frames;
  }

  async cancel(): Promise<void> {
    await this.reader.cancel().catch(() => undefined);
  }
}

export const events = (frames: Frame[]): Array<{ event: string; id: string; data: any }> =>
  frames.filter((f) => f.event !== undefined).map((f) => ({ event: f.event!, id: f.id!, data: JSON.parse(f.data!) }));
