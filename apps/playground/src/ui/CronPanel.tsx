/** Cron: register a periodic job, list and delete them. */
import { useEffect, useState, type FormEvent } from 'react';
import type { Connection } from '../server/connection.js';
import { PLAYGROUND_JOB_TYPE } from '../workers/browser-workers.js';

interface CronRow {
  name: string;
  expression?: string;
  next_run_at?: string;
}

export function CronPanel({ connection }: { connection: Connection }) {
  const [rows, setRows] = useState<CronRow[]>([]);
  const [name, setName] = useState('every-10s');
  const [expression, setExpression] = useState('*/10 * * * * *');
  const [message, setMessage] = useState<string | undefined>();
  const load = async (): Promise<void> => {
    try {
      const list = (await connection.api.listCron()) as unknown as { cron_jobs?: CronRow[]; crons?: CronRow[] };
      setRows(list.cron_jobs ?? list.crons ?? []);
    } catch (e) {
      setMessage((e as Error).message);
    }
  };
  useEffect(() => void load(), [connection]);
  const submit = async (event: FormEvent): Promise<void> => {
    event.preventDefault();
    try {
      await connection.api.registerCron({
        name,
        expression,
        job_template: { type: PLAYGROUND_JOB_TYPE, args: [{ ms: 300 }], options: { queue: 'playground' } },
      });
      setMessage(`Registered ${name}.`);
    } catch (e) {
      setMessage(`Refused: ${(e as Error).message}`);
    }
    await load();
  };
  return (
    <section aria-labelledby="cron-title">
      <form className="form" onSubmit={(e) => void submit(e)}>
        <h2 id="cron-title">Cron</h2>
        <div className="row">
          <label>
            Name <input value={name} onChange={(e) => setName(e.target.value)} required />
          </label>
          <label>
            Expression <input value={expression} onChange={(e) => setExpression(e.target.value)} required />
          </label>
        </div>
        <button type="submit">Register</button>
        {message && <p role="status">{message}</p>}
      </form>
      <ul className="plain" data-testid="cron-list">
        {rows.map((row) => (
          <li key={row.name}>
            <code>{row.name}</code> {row.expression} {row.next_run_at ? `next ${row.next_run_at.slice(11, 19)}` : ''}{' '}
            <button type="button" onClick={() => void connection.api.deleteCron(row.name).then(load, (e: Error) => setMessage(e.message))}>
              Delete {row.name}
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
