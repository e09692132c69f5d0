/** Per-queue, per-state counts (columns from core's state list). Selecting queues filters the diagram. */
import { JOB_STATES } from '@ojskit/core';
import type { LiveModel } from '../live/live-model.js';
import { usePolled } from './hooks.js';

interface Props {
  live: LiveModel;
  selected: readonly string[];
  onToggle: (queue: string) => void;
}

export function QueueCounts({ live, selected, onToggle }: Props) {
  usePolled(() => live.counts.version, 200);
  const queues = live.counts.queues();
  return (
    <div className="table-wrap" tabIndex={0} role="region" aria-label="Jobs per state, per queue">
      <table className="counts" data-testid="queue-counts">
        <caption>Jobs per state, per queue {selected.length > 0 ? `(diagram shows ${selected.join(', ')})` : '(diagram shows all queues)'}</caption>
        <thead>
          <tr>
            <th scope="col">queue</th>
            {JOB_STATES.map((s) => (
              <th scope="col" key={s}>
                {s}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {queues.length === 0 && (
            <tr>
              <td colSpan={JOB_STATES.length + 1}>No queues yet: run a scenario or enqueue a job.</td>
            </tr>
          )}
          {queues.map((queue) => {
            const counts = live.counts.queue(queue);
            return (
              <tr key={queue} data-queue={queue}>
                <th scope="row">
                  <label>
                    <input type="checkbox" checked={selected.includes(queue)} onChange={() => onToggle(queue)} /> {queue}
                  </label>
                </th>
                {JOB_STATES.map((s) => (
                  <td key={s} data-state={s}>
                    {Math.max(0, counts[s])}
                  </td>
                ))}
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
