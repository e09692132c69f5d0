/** Workflows: start a chain, group or batch of playground tasks and watch each member's state as a small graph. */
import type { WorkflowDescription } from '@ojskit/core';
import { useEffect, useState } from 'react';
import type { Connection } from '../server/connection.js';
import { PLAYGROUND_JOB_TYPE } from '../workers/browser-workers.js';
import { hueStyle } from './state-colors.js';
import { isJobState } from '@ojskit/core';

interface Props {
  connection: Connection;
  ids: readonly string[];
  onStarted: (id: string) => void;
  onSelectJob: (id: string) => void;
}

export function WorkflowsPanel({ connection, ids, onStarted, onSelectJob }: Props) {
  const [workflows, setWorkflows] = useState<Record<string, WorkflowDescription>>({});
  const [error, setError] = useState<string | undefined>();
  useEffect(() => {
    let stopped = false;
    const poll = async (): Promise<void> => {
      const entries = await Promise.all(
        ids.map((id) =>
          connection.api.getWorkflow(id).then(
            (r) => [id, r.workflow] as const,
            () => undefined,
          ),
        ),
      );
      if (!stopped) setWorkflows(Object.fromEntries(entries.filter((e) => e !== undefined)));
    };
    void poll();
    const timer = setInterval(() => void poll(), 500);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [connection, ids]);

  const start = async (type: 'chain' | 'group' | 'batch'): Promise<void> => {
    const items = [0, 1, 2].map((i) => ({ type: PLAYGROUND_JOB_TYPE, args: [{ ms: 400 + i * 200 }], name: `step-${i}` }));
    try {
      const body =
        type === 'chain'
          ? { type, name: 'demo-chain', options: { queue: 'playground' }, steps: items }
          : {
              type,
              name: `demo-${type}`,
              options: { queue: 'playground' },
              jobs: items,
              ...(type === 'batch' ? { callbacks: { on_complete: { type: PLAYGROUND_JOB_TYPE, args: [{ ms: 100 }] } } } : {}),
            };
      const { workflow } = await connection.api.createWorkflow(body);
      onStarted(workflow.id);
    } catch (e) {
      setError((e as Error).message);
    }
  };

  return (
    <section aria-labelledby="workflows-title">
      <h2 id="workflows-title">Workflows</h2>
      <p className="hint">Members are {PLAYGROUND_JOB_TYPE} jobs on queue playground: start the browser workers to run them.</p>
      <div className="row">
        {(['chain', 'group', 'batch'] as const).map((t) => (
          <button type="button" key={t} onClick={() => void start(t)}>
            Start a {t}
          </button>
        ))}
      </div>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {ids.map((id) => {
        const wf = workflows[id];
        if (!wf) return null;
        const members = wf.steps ?? wf.jobs ?? [];
        return (
          <figure key={id} className="workflow" data-testid="workflow" data-state={wf.state}>
            <figcaption>
              {wf.type} <code>{wf.name ?? id.slice(-8)}</code>: <strong>{wf.state}</strong>
            </figcaption>
            <ol className={`members ${wf.type === 'chain' ? 'chain' : 'fan'}`}>
              {members.map((m) => (
                <li key={m.index} style={isJobState(m.state) ? hueStyle(m.state) : undefined} className="member" data-member-state={m.state}>
                  {m.job_id ? (
                    <button type="button" className="link" onClick={() => onSelectJob(m.job_id!)}>
                      #{m.index} {m.type}: {m.state}
                    </button>
                  ) : (
                    <span>
                      #{m.index} {m.type}: {m.state} (not enqueued)
                    </span>
                  )}
                </li>
              ))}
            </ol>
          </figure>
        );
      })}
    </section>
  );
}
