/** One-click guided scenarios, run on the current server (or on both, side by side). */
import { useRef, useState } from 'react';
import { SCENARIOS } from '../scenarios/catalog.js';
import type { Scenario, ScenarioContext } from '../scenarios/steps.js';
import type { Connection } from '../server/connection.js';

interface Run {
  server: string;
  status: 'running' | 'done' | 'failed';
  lines: string[];
  outcome: string;
  jobs: string[];
  ms: number;
}

interface Props {
  connections: readonly Connection[];
  onSelectJob: (id: string, connection: Connection) => void;
  onWorkflow: (id: string, connection: Connection) => void;
}

export function ScenariosPanel({ connections, onSelectJob, onWorkflow }: Props) {
  const [runs, setRuns] = useState<Record<string, Run[]>>({});
  const controllers = useRef(new Map<string, AbortController>());

  const start = (scenario: Scenario): void => {
    controllers.current.get(scenario.id)?.abort();
    const controller = new AbortController();
    controllers.current.set(scenario.id, controller);
    const suffix = Math.random().toString(36).slice(2, 7);
    const initial: Run[] = connections.map((c) => ({ server: c.entry.url, status: 'running', lines: [], outcome: '', jobs: [], ms: 0 }));
    setRuns((all) => ({ ...all, [scenario.id]: initial }));
    const update = (index: number, change: (run: Run) => Run): void =>
      setRuns((all) => ({ ...all, [scenario.id]: (all[scenario.id] ?? initial).map((run, i) => (i === index ? change(run) : run)) }));
    connections.forEach((connection, index) => {
      const started = performance.now();
      const ctx: ScenarioContext = {
        api: connection.api,
        queue: `${scenario.id}-${suffix}`,
        signal: controller.signal,
        log: (line) => update(index, (run) => ({ ...run, lines: [...run.lines, line] })),
        noteJob: (id) => update(index, (run) => ({ ...run, jobs: [...run.jobs, id] })),
        noteWorkflow: (id) => onWorkflow(id, connection),
      };
      scenario.run(ctx).then(
        (outcome) => update(index, (run) => ({ ...run, status: 'done', outcome, ms: performance.now() - started })),
        (error: unknown) =>
          update(index, (run) => ({
            ...run,
            status: 'failed',
            outcome: error instanceof Error ? error.message : String(error),
            ms: performance.now() - started,
          })),
      );
    });
  };

  return (
    <section aria-labelledby="scenarios-title">
      <h2 id="scenarios-title">Guided scenarios</h2>
      <p className="hint">Each runs a worker in this tab on a queue of its own{connections.length > 1 ? ', on both servers at once' : ''}.</p>
      <ul className="scenarios">
        {SCENARIOS.map((scenario) => (
          <li key={scenario.id} data-scenario={scenario.id}>
            <button type="button" onClick={() => start(scenario)} disabled={runs[scenario.id]?.some((r) => r.status === 'running')}>
              Run: {scenario.title}
            </button>
            <p className="narration">{scenario.narration}</p>
            {(runs[scenario.id] ?? []).map((run, i) => (
              <div key={i} className={`run ${run.status}`} data-status={run.status} data-testid={`run-${scenario.id}`}>
                {connections.length > 1 && <strong>{run.server}</strong>}
                <ol>
                  {run.lines.map((line, n) => (
                    <li key={n}>{line}</li>
                  ))}
                </ol>
                <p role="status">{run.status === 'running' ? 'running…' : `${run.status === 'done' ? '✓' : '✗'} ${run.outcome} (${Math.round(run.ms)} ms)`}</p>
                {run.jobs.map((id) => (
                  <button type="button" className="link" key={id} onClick={() => onSelectJob(id, connections[i]!)} data-job={id}>
                    open job {id.slice(-8)}
                  </button>
                ))}
              </div>
            ))}
          </li>
        ))}
      </ul>
    </section>
  );
}
