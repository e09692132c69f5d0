/** Enqueue a job: type, args as JSON (validated as you type), queue, priority, delay or time, retry, unique key. */
import { useState, type FormEvent } from 'react';
import { PLAYGROUND_JOB_TYPE } from '../workers/browser-workers.js';
import type { Connection } from '../server/connection.js';
import { parseArgs } from './parse-args.js';

export function EnqueueForm({ connection, onEnqueued }: { connection: Connection; onEnqueued: (id: string) => void }) {
  const [type, setType] = useState(PLAYGROUND_JOB_TYPE);
  const [args, setArgs] = useState('[{"ms": 800}]');
  const [queue, setQueue] = useState('playground');
  const [priority, setPriority] = useState(0);
  const [delay, setDelay] = useState(0);
  const [maxAttempts, setMaxAttempts] = useState(3);
  const [deadLetter, setDeadLetter] = useState(true);
  const [uniqueKey, setUniqueKey] = useState('');
  const [message, setMessage] = useState<string | undefined>();
  const parsed = parseArgs(args);

  const submit = async (event: FormEvent): Promise<void> => {
    event.preventDefault();
    if ('error' in parsed) return;
    const options: Record<string, unknown> = {
      queue,
      priority,
      retry: { max_attempts: maxAttempts, initial_interval: 'PT1S', on_exhaustion: deadLetter ? 'dead_letter' : 'discard' },
    };
    if (delay > 0) options['scheduled_at'] = new Date(Date.now() + delay * 1000).toISOString();
    if (uniqueKey.trim()) options['unique'] = { keys: ['queue', 'meta'], meta_keys: ['unique_key'], period: 'PT10M' };
    try {
      const { job } = await connection.api.enqueue({
        type,
        args: parsed.args,
        options,
        ...(uniqueKey.trim() ? { meta: { unique_key: uniqueKey.trim() } } : {}),
      });
      setMessage(`Enqueued ${job.id} (${job.state}).`);
      onEnqueued(job.id);
    } catch (e) {
      setMessage(`Refused: ${(e as Error).message}`);
    }
  };

  return (
    <form className="form" onSubmit={(e) => void submit(e)} aria-labelledby="enqueue-title">
      <h2 id="enqueue-title">Enqueue a job</h2>
      <label>
        Type <input value={type} onChange={(e) => setType(e.target.value)} required />
      </label>
      <label>
        Args (JSON array)
        <textarea value={args} onChange={(e) => setArgs(e.target.value)} rows={3} aria-invalid={'error' in parsed} aria-describedby="args-help" />
      </label>
      <small id="args-help" className={'error' in parsed ? 'error' : 'hint'}>
        {'error' in parsed ? parsed.error : `The browser worker handles ${PLAYGROUND_JOB_TYPE}: {"ms": 800, "fail": true | "permanent"}.`}
      </small>
      <div className="row">
        <label>
          Queue <input value={queue} onChange={(e) => setQueue(e.target.value)} required />
        </label>
        <label>
          Priority <input type="number" min={-100} max={100} value={priority} onChange={(e) => setPriority(Number(e.target.value))} />
        </label>
      </div>
      <div className="row">
        <label>
          Delay (s) <input type="number" min={0} value={delay} onChange={(e) => setDelay(Number(e.target.value))} />
        </label>
        <label>
          Max attempts <input type="number" min={1} max={50} value={maxAttempts} onChange={(e) => setMaxAttempts(Number(e.target.value))} />
        </label>
      </div>
      <label className="check">
        <input type="checkbox" checked={deadLetter} onChange={(e) => setDeadLetter(e.target.checked)} /> Keep in the dead-letter queue when retries run out
      </label>
      <label>
        Unique key (optional) <input value={uniqueKey} onChange={(e) => setUniqueKey(e.target.value)} />
      </label>
      <button type="submit" disabled={'error' in parsed}>
        Enqueue
      </button>
      {message && <p role="status">{message}</p>}
    </form>
  );
}
