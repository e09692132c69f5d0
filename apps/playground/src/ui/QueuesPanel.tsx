/** Queues: pause and resume. */
import type { Connection } from '../server/connection.js';
import { useEffect, useState } from 'react';
import { usePolled } from './hooks.js';

export function QueuesPanel({ connection }: { connection: Connection }) {
  const [queues, setQueues] = useState<{ name: string; paused: boolean }[]>([]);
  const [error, setError] = useState<string | undefined>();
  const tick = usePolled(() => Math.floor(connection.live.version / 50), 1_000);
  const load = async (): Promise<void> => {
    try {
      const { queues } = await connection.api.listQueues({ limit: 200 } as never);
      setQueues(queues.map((q) => ({ name: q.name, paused: Boolean((q as { paused?: boolean }).paused) })));
    } catch (e) {
      setError((e as Error).message);
    }
  };
  useEffect(() => void load(), [connection, tick]);
  const toggle = async (name: string, paused: boolean): Promise<void> => {
    try {
      await (paused ? connection.api.resumeQueue(name) : connection.api.pauseQueue(name));
      await load();
    } catch (e) {
      setError((e as Error).message);
    }
  };
  return (
    <section aria-labelledby="queues-title">
      <h2 id="queues-title">Queues</h2>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      <ul className="plain" data-testid="queues">
        {queues.map((q) => (
          <li key={q.name}>
            <code>{q.name}</code> {q.paused ? '(paused)' : ''}{' '}
            <button type="button" onClick={() => void toggle(q.name, q.paused)}>
              {q.paused ? 'Resume' : 'Pause'} {q.name}
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
