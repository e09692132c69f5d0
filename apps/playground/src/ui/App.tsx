/** The playground page: header (server, theme, links), the live lifecycle, and the tool panels. */
import { useCallback, useEffect, useMemo, useState } from 'react';
import { Connection } from '../server/connection.js';
import { loadServers, saveServers, type ServerEntry } from '../server/servers.js';
import { BrowserWorkers } from '../workers/browser-workers.js';
import { CronPanel } from './CronPanel.js';
import { DeadLetterPanel } from './DeadLetterPanel.js';
import { EnqueueForm } from './EnqueueForm.js';
import { JobDrawer } from './JobDrawer.js';
import { LifecycleDiagram } from './LifecycleDiagram.js';
import { LiveControls } from './LiveControls.js';
import { QueueCounts } from './QueueCounts.js';
import { QueuesPanel } from './QueuesPanel.js';
import { ScenariosPanel } from './ScenariosPanel.js';
import { ServerSummary, ServerSwitcher } from './ServerBar.js';
import { Timeline } from './Timeline.js';
import { UniversalModel } from './UniversalModel.js';
import { WorkersPanel } from './WorkersPanel.js';
import { WorkflowsPanel } from './WorkflowsPanel.js';

const TABS = ['Scenarios', 'Enqueue', 'Workers', 'Queues', 'Dead letter', 'Cron', 'Workflows', 'Timeline', 'Universal model'] as const;
type Tab = (typeof TABS)[number];
type Theme = 'light' | 'dark' | 'system';

function useConnection(entry: ServerEntry | undefined): Connection | undefined {
  const [connection, setConnection] = useState<Connection | undefined>();
  useEffect(() => {
    if (!entry) {
      setConnection(undefined);
      return;
    }
    const c = new Connection(entry);
    setConnection(c);
    void c.open();
    return () => c.close();
  }, [entry]);
  return connection;
}

export function App() {
  const [servers, setServers] = useState<ServerEntry[]>(loadServers);
  const [current, setCurrent] = useState(0);
  const [compare, setCompare] = useState<number | undefined>();
  const [tab, setTab] = useState<Tab>('Scenarios');
  const [selected, setSelected] = useState<{ id: string; connection: Connection } | undefined>();
  const [queues, setQueues] = useState<string[]>([]);
  const [workflowIds, setWorkflowIds] = useState<string[]>([]);
  const [theme, setTheme] = useState<Theme>(() => (localStorage.getItem('ojskit.playground.theme') as Theme | null) ?? 'system');

  const primary = useConnection(servers[current]);
  const secondary = useConnection(compare === undefined ? undefined : servers[compare]);
  const workers = useMemo(() => (primary ? new BrowserWorkers(primary.api) : undefined), [primary]);
  useEffect(() => () => void workers?.stop(), [workers]);

  useEffect(() => {
    document.documentElement.dataset['theme'] = theme;
    localStorage.setItem('ojskit.playground.theme', theme);
  }, [theme]);

  const connections = [primary, secondary].filter((c): c is Connection => c !== undefined);
  const select = useCallback(
    (id: string, connection?: Connection) => {
      if (connection ?? primary) setSelected({ id, connection: (connection ?? primary)! });
    },
    [primary],
  );
  const addWorkflow = useCallback((id: string) => setWorkflowIds((ids) => [id, ...ids.filter((x) => x !== id)].slice(0, 8)), []);
  const addServer = (entry: ServerEntry): void => {
    const next = [...servers.filter((s) => s.url !== entry.url), entry];
    const home = servers[0]!;
    const ordered = entry.url === home.url ? [entry, ...next.filter((s) => s.url !== entry.url)] : next;
    setServers(ordered);
    saveServers(ordered);
  };

  return (
    <div className="app">
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <h1>
          <span aria-hidden="true">◉</span> ojskit playground
        </h1>
        {primary && <ServerSummary connection={primary} />}
        <nav aria-label="Links" className="links">
          <a href={`${servers[current]?.url ?? ''}/ojs/v1/docs`} target="_blank" rel="noreferrer">
            API reference
          </a>
          <a href={`${servers[current]?.url ?? ''}/ojs/manifest`} target="_blank" rel="noreferrer">
            Manifest
          </a>
        </nav>
        <label className="theme">
          Theme{' '}
          <select value={theme} onChange={(e) => setTheme(e.target.value as Theme)}>
            <option value="system">system</option>
            <option value="light">light</option>
            <option value="dark">dark</option>
          </select>
        </label>
        <ServerSwitcher servers={servers} current={current} compare={compare} onSelect={setCurrent} onCompare={setCompare} onAdd={addServer} />
      </header>
      <main id="main" className={`layout${secondary ? ' compare' : ''}`}>
        <div className="stage">
          {connections.map((c, i) => (
            <section key={c.entry.url + i} className="stage-item" aria-label={i === 0 ? 'Lifecycle' : `Lifecycle on ${c.entry.url}`}>
              {i > 0 && <ServerSummary connection={c} />}
              <LiveControls live={c.live} />
              <LifecycleDiagram live={c.live} queues={queues} onSelectJob={(id) => select(id, c)} title={i === 0 ? 'Lifecycle' : c.entry.url} />
              {i === 0 && (
                <QueueCounts live={c.live} selected={queues} onToggle={(q) => setQueues((qs) => (qs.includes(q) ? qs.filter((x) => x !== q) : [...qs, q]))} />
              )}
            </section>
          ))}
        </div>
        <div className="panel">
          <div role="tablist" aria-label="Tools" className="tabs">
            {TABS.map((t) => (
              <button
                key={t}
                role="tab"
                type="button"
                id={`tab-${t}`}
                aria-selected={tab === t}
                aria-controls="tabpanel"
                tabIndex={tab === t ? 0 : -1}
                onClick={() => setTab(t)}
                onKeyDown={(e) => {
                  const i = TABS.indexOf(t);
                  const next =
                    e.key === 'ArrowRight' ? TABS[(i + 1) % TABS.length] : e.key === 'ArrowLeft' ? TABS[(i - 1 + TABS.length) % TABS.length] : undefined;
                  if (next) {
                    setTab(next);
                    document.getElementById(`tab-${next}`)?.focus();
                  }
                }}
              >
                {t}
              </button>
            ))}
          </div>
          <div role="tabpanel" id="tabpanel" aria-labelledby={`tab-${tab}`} className="tabpanel">
            {primary && tab === 'Scenarios' && <ScenariosPanel connections={connections} onSelectJob={select} onWorkflow={addWorkflow} />}
            {primary && tab === 'Enqueue' && <EnqueueForm connection={primary} onEnqueued={() => undefined} />}
            {workers && tab === 'Workers' && <WorkersPanel workers={workers} />}
            {primary && tab === 'Queues' && <QueuesPanel connection={primary} />}
            {primary && tab === 'Dead letter' && <DeadLetterPanel connection={primary} onSelectJob={select} />}
            {primary && tab === 'Cron' && <CronPanel connection={primary} />}
            {primary && tab === 'Workflows' && <WorkflowsPanel connection={primary} ids={workflowIds} onStarted={addWorkflow} onSelectJob={select} />}
            {primary && tab === 'Timeline' && <Timeline live={primary.live} onSelectJob={select} />}
            {tab === 'Universal model' && <UniversalModel />}
          </div>
        </div>
      </main>
      {selected && <JobDrawer connection={selected.connection} jobId={selected.id} onClose={() => setSelected(undefined)} />}
    </div>
  );
}
