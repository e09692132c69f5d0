/** Pause/resume, replay, and the live rate: the stream's transport controls. */
import type { LiveModel } from '../live/live-model.js';
import { usePolled } from './hooks.js';

export function LiveControls({ live }: { live: LiveModel }) {
  const view = usePolled(() => `${live.paused}|${live.heldCount}|${live.ratePerSecond}|${live.replaying}|${live.received}`, 250);
  const [paused, held, rate, replaying] = view.split('|');
  return (
    <div className="live-controls" role="group" aria-label="Live view controls">
      {paused === 'true' ? (
        <button type="button" onClick={() => live.resume()} data-testid="resume-live">
          Resume live ({held} held)
        </button>
      ) : (
        <button type="button" onClick={() => live.pause()} data-testid="pause-live">
          Pause
        </button>
      )}
      <button type="button" onClick={() => live.replay()} disabled={replaying === 'true'} data-testid="replay">
        {replaying === 'true' ? 'Replaying…' : 'Replay recent'}
      </button>
      <span className="rate" aria-live="off" data-testid="rate">
        {rate} transitions/s
      </span>
    </div>
  );
}
