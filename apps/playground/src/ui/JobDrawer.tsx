/** One job's whole story: envelope, args, result, errors per attempt, progress, and every transition. */
import { isTerminal, type Job, type OjsEvent, type ProgressResponse } from '@ojskit/core';
import { useEffect, useRef, useState } from 'react';
import type { Connection } from '../server/connection.js';
import { usePolled } from './hooks.js';
import { mergeHistory } from './job-history.js';

interface Props {
  connection: Connection;
  jobId: string;
  onClose: () => void;
}

export function JobDrawer({ connection, jobId, onClose }: Props) {
  const [job, setJob] = useState<Job | undefined>();
  const [polled, setPolled] = useState<OjsEvent[]>([]);
  const [progress, setProgress] = useState<ProgressResponse | undefined>();
  const [error, setError] = useState<string | undefined>();
  const streamed = usePolled(() => connection.live.stories.get(jobId), 200);
  const closeRef = useRef<HTMLButtonElement>(null);

  useEffect(() => closeRef.current?.focus(), [jobId]);
  useEffect(() => {
    const onKey = (e: KeyboardEvent): void => {
      if (e.key === 'Escape') onClose();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [onClose]);

  // Refetch whenever the stream shows this job moving: the envelope (result, errors) changes with it.
  const moves = streamed.length;
  useEffect(() => {
    let live = true;
    void (async () => {
      try {
        const [{ job }, events, prog] = await Promise.all([
          connection.api.getJob(jobId),
          connection.api.pollEvents({ jobId, limit: 500 }).catch(() => ({ events: [] as OjsEvent[] })),
          connection.api.getProgress(jobId).catch(() => undefined),
        ]);
        if (!live) return;
        setJob(job);
        setPolled(events.events);
        setProgress(prog);
        setError(undefined);
      } catch (e) {
        if (live) setError(e instanceof Error ? e.message : String(e));
      }
    })();
    return () => {
      live = false;
    };
  }, [connection, jobId, moves]);

  const history = mergeHistory(polled, streamed);
  const { args, result, errors, ...envelope } = (job ?? {}) as Job & Record<string, unknown>;
  return (
    <aside className="drawer" role="dialog" aria-modal="false" aria-labelledby="drawer-title" data-testid="job-drawer">
      <header>
        <h2 id="drawer-title">
          Job <code>{jobId}</code>
        </h2>
        <button type="button" ref={closeRef} onClick={onClose} aria-label="Close job details">
          ✕
        </button>
      </header>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {job && (
        <>
          <p>
            <strong>{job.type}</strong> on <code>{job.queue}</code>:{' '}
            <span className="state-pill" data-testid="drawer-state">
              {job.state}
            </span>
            , attempt {job.attempt} of {job.max_attempts}
          </p>
          {!isTerminal(job.state) && (
            <button type="button" onClick={() => void connection.api.cancelJob(jobId).catch((e: Error) => setError(e.message))}>
              Cancel job
            </button>
          )}
        </>
      )}
      <h3>Transition history</h3>
      <table className="history" data-testid="drawer-history">
        <thead>
          <tr>
            <th scope="col">from</th>
            <th scope="col">to</th>
            <th scope="col">when</th>
            <th scope="col">attempt</th>
            <th scope="col">worker</th>
            <th scope="col">why</th>
          </tr>
        </thead>
        <tbody>
          {history.map((t) => (
            <tr key={t.eventId} data-to={t.to}>
              <td>{t.from ?? 'new'}</td>
              <td>{t.to}</td>
              <td>
                <time dateTime={t.at}>{t.at.slice(11, 23)}</time>
              </td>
              <td>{t.attempt ?? ''}</td>
              <td>{t.workerId ?? ''}</td>
              <td>
                <code>{t.type}</code>
                {t.reason ? `: ${t.reason}` : ''}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {job && (
        <>
          <h3>Args</h3>
          <pre>{JSON.stringify(args, null, 2)}</pre>
          {result !== undefined && (
            <>
              <h3>Result</h3>
              <pre data-testid="drawer-result">{JSON.stringify(result, null, 2)}</pre>
            </>
          )}
          {progress && progress.progress !== null && (
            <>
              <h3>Progress</h3>
              <p>
                {Math.round((progress.progress ?? 0) * 100)}% {progress.message ?? ''}
              </p>
            </>
          )}
          {Array.isArray(errors) && errors.length > 0 && (
            <>
              <h3>Errors</h3>
              <ol className="errors" data-testid="drawer-errors">
                {errors.map((e, i) => (
                  <li key={i}>
                    attempt {e.attempt}: <code>{e.type}</code> {e.message} <time dateTime={e.occurred_at}>{e.occurred_at.slice(11, 23)}</time>
                  </li>
                ))}
              </ol>
            </>
          )}
          <details>
            <summary>Envelope</summary>
            <pre>{JSON.stringify(envelope, null, 2)}</pre>
          </details>
        </>
      )}
    </aside>
  );
}
