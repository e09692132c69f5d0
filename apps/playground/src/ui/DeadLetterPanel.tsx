/** The dead-letter queue: jobs that ran out of retries, with retry (attempts reset) and delete. */
import type { Job } from '@ojskit/core';
import { useEffect, useState } from 'react';
import type { Connection } from '../server/connection.js';
import { usePolled } from './hooks.js';

export function DeadLetterPanel({ connection, onSelectJob }: { connection: Connection; onSelectJob: (id: string) => void }) {
  const [jobs, setJobs] = useState<Job[]>([]);
  const [error, setError] = useState<string | undefined>();
  const tick = usePolled(() => Math.floor(connection.live.version / 20), 1_000);
  const load = async (): Promise<void> => {
    try {
      setJobs((await connection.api.listDeadLetter({ limit: 100 } as never)).jobs);
      setError(undefined);
    } catch (e) {
      setError((e as Error).message);
    }
  };
  useEffect(() => void load(), [connection, tick]);
  const act = async (fn: () => Promise<unknown>): Promise<void> => {
    try {
      await fn();
    } catch (e) {
      setError((e as Error).message);
    }
    await load();
  };
  return (
    <section aria-labelledby="dlq-title">
      <h2 id="dlq-title">Dead letter</h2>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {jobs.length === 0 && <p>No dead-lettered jobs.</p>}
      <ul className="plain" data-testid="dead-letter">
        {jobs.map((job) => (
          <li key={job.id} data-job={job.id}>
            <button type="button" className="link" onClick={() => onSelectJob(job.id)}>
              {job.type} {job.id.slice(-8)}
            </button>{' '}
            <code>{job.queue}</code> {job.error?.message ?? ''}{' '}
            <button type="button" onClick={() => void act(() => connection.api.retryDeadLetter(job.id))} aria-label={`Retry ${job.id}`}>
              Retry
            </button>{' '}
            <button type="button" onClick={() => void act(() => connection.api.deleteDeadLetter(job.id))} aria-label={`Delete ${job.id}`}>
              Delete
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
