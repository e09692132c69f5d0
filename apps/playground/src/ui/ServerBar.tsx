/** Which server the page talks to (from its manifest), the switcher, and the side-by-side toggle. */
import { useState, type FormEvent } from 'react';
import type { Connection } from '../server/connection.js';
import { normaliseUrl, type ServerEntry } from '../server/servers.js';
import { usePolled } from './hooks.js';

export function ServerSummary({ connection }: { connection: Connection }) {
  usePolled(() => `${connection.status}|${connection.manifest?.backend}|${connection.error}|${connection.reconnects}`, 300);
  const m = connection.manifest;
  return (
    <span className="server-summary" data-testid="server-summary" data-status={connection.status}>
      <span className={`dot ${connection.status}`} aria-hidden="true" />
      {m ? (
        <>
          <strong>{m.implementation.name}</strong> {m.implementation.version} · backend <strong data-testid="backend">{String(m.backend ?? 'unknown')}</strong>{' '}
          · level {m.conformance_level} · stream {connection.status}
          {connection.reconnects > 0 && (
            <span title="The server dropped the stream (this page fell behind) and it resumed; counts are re-read from the server once each queue is quiet.">
              {' '}
              (resumed {connection.reconnects}×)
            </span>
          )}
        </>
      ) : (
        <>{connection.error ? `cannot reach ${connection.entry.url}: ${connection.error}` : `connecting to ${connection.entry.url}…`}</>
      )}
    </span>
  );
}

interface Props {
  servers: readonly ServerEntry[];
  current: number;
  compare: number | undefined;
  onSelect: (index: number) => void;
  onCompare: (index: number | undefined) => void;
  onAdd: (entry: ServerEntry) => void;
}

export function ServerSwitcher({ servers, current, compare, onSelect, onCompare, onAdd }: Props) {
  const [url, setUrl] = useState('');
  const [apiKey, setApiKey] = useState('');
  const [error, setError] = useState<string | undefined>();
  const add = (event: FormEvent): void => {
    event.preventDefault();
    try {
      onAdd({ url: normaliseUrl(url), ...(apiKey ? { apiKey } : {}) });
      setUrl('');
      setApiKey('');
      setError(undefined);
    } catch {
      setError('Not a URL.');
    }
  };
  return (
    <details className="switcher">
      <summary>Servers</summary>
      <div className="switcher-body">
        <label>
          Server{' '}
          <select value={current} onChange={(e) => onSelect(Number(e.target.value))}>
            {servers.map((s, i) => (
              <option key={s.url} value={i}>
                {s.url}
                {s.apiKey ? ' (key)' : ''}
              </option>
            ))}
          </select>
        </label>
        <label>
          Side by side with{' '}
          <select value={compare ?? ''} onChange={(e) => onCompare(e.target.value === '' ? undefined : Number(e.target.value))}>
            <option value="">(none)</option>
            {servers.map((s, i) =>
              i === current ? null : (
                <option key={s.url} value={i}>
                  {s.url}
                </option>
              ),
            )}
          </select>
        </label>
        <form onSubmit={add} className="row">
          <label>
            Add server URL <input value={url} onChange={(e) => setUrl(e.target.value)} placeholder="http://localhost:8081" required />
          </label>
          <label>
            API key <input value={apiKey} onChange={(e) => setApiKey(e.target.value)} type="password" autoComplete="off" />
          </label>
          <button type="submit">Add</button>
        </form>
        {error && <p className="error">{error}</p>}
        <p className="hint">The other server must allow this page's origin (CORS). Servers are remembered in this browser.</p>
      </div>
    </details>
  );
}
