/** The scrolling event timeline (newest first). Rows open the job drawer. */
import type { LiveModel } from '../live/live-model.js';
import { usePolled } from './hooks.js';

export function Timeline({ live, onSelectJob }: { live: LiveModel; onSelectJob: (id: string) => void }) {
  usePolled(() => live.version, 250);
  const entries = live.timeline.newest(120);
  return (
    <ol className="timeline" data-testid="timeline" aria-label="Event timeline, newest first">
      {entries.length === 0 && <li className="empty">Waiting for events…</li>}
      {entries.map((entry) => (
        <li key={entry.id}>
          <time dateTime={entry.at}>{entry.at.slice(11, 23)}</time> <code>{entry.type}</code>{' '}
          {entry.jobId ? (
            <button type="button" className="link" onClick={() => onSelectJob(entry.jobId!)}>
              {entry.summary}
            </button>
          ) : (
            <span>{entry.summary}</span>
          )}
        </li>
      ))}
    </ol>
  );
}
