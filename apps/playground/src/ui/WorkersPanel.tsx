/** Workers in this browser tab (the SDK's Worker over HTTP) and their knobs. */
import { useState } from 'react';
import type { BrowserWorkers } from '../workers/browser-workers.js';
import { PLAYGROUND_JOB_TYPE } from '../workers/browser-workers.js';
import { usePolled } from './hooks.js';

export function WorkersPanel({ workers }: { workers: BrowserWorkers }) {
  usePolled(() => workers.version, 250);
  const [knobs, setKnobs] = useState(workers.knobs);
  const [crashQueue, setCrashQueue] = useState('playground');
  const [note, setNote] = useState<string | undefined>();
  const set = <K extends keyof typeof knobs>(key: K, value: (typeof knobs)[K]): void => setKnobs((k) => ({ ...k, [key]: value }));
  return (
    <section className="form" aria-labelledby="workers-title">
      <h2 id="workers-title">Workers in this browser</h2>
      <p className="hint">
        Handles <code>{PLAYGROUND_JOB_TYPE}</code> jobs through <code>@ojskit/client</code>'s Worker over HTTP: fetch, heartbeats, batched acks.
      </p>
      <label>
        Queues (comma-separated){' '}
        <input
          value={knobs.queues.join(',')}
          onChange={(e) =>
            set(
              'queues',
              e.target.value
                .split(',')
                .map((q) => q.trim())
                .filter(Boolean),
            )
          }
        />
      </label>
      <div className="row">
        <label>
          Concurrency <input type="number" min={1} max={200} value={knobs.concurrency} onChange={(e) => set('concurrency', Number(e.target.value))} />
        </label>
        <label>
          Duration (ms) <input type="number" min={0} value={knobs.durationMs} onChange={(e) => set('durationMs', Number(e.target.value))} />
        </label>
      </div>
      <label>
        Failure rate: {Math.round(knobs.failureRate * 100)}%
        <input type="range" min={0} max={1} step={0.05} value={knobs.failureRate} onChange={(e) => set('failureRate', Number(e.target.value))} />
      </label>
      <label className="check">
        <input type="checkbox" checked={knobs.cooperativeCancel} onChange={(e) => set('cooperativeCancel', e.target.checked)} /> Stop when cancelled (honour the
        AbortSignal)
      </label>
      <div className="row">
        <button type="button" onClick={() => void workers.start(knobs)} data-testid="start-workers">
          {workers.running ? 'Apply and restart' : 'Start workers'}
        </button>
        <button type="button" onClick={() => void workers.stop()} disabled={!workers.running}>
          Stop
        </button>
      </div>
      <p role="status">
        {workers.running ? 'running' : 'stopped'} · completed {workers.completed} · failed {workers.failed} · crashed {workers.crashed}
      </p>
      <h3>Crash</h3>
      <p className="hint">Claims one job and vanishes without heartbeats: the server's visibility timeout (1.5 s) must rescue it.</p>
      <div className="row">
        <label>
          Queue <input value={crashQueue} onChange={(e) => setCrashQueue(e.target.value)} />
        </label>
        <button
          type="button"
          onClick={() =>
            void workers.crash(crashQueue).then(
              (id) => setNote(id ? `Claimed ${id} and crashed.` : 'Nothing to claim.'),
              (e: Error) => setNote(e.message),
            )
          }
        >
          Crash a worker mid-job
        </button>
      </div>
      {note && <p role="status">{note}</p>}
    </section>
  );
}
