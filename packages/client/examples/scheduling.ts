/** Scheduling: delays, a point in time, and recurring jobs (cron). */
import { Client, Worker, inProcess } from '@ojskit/client';
import { MemoryDriver } from '@ojskit/memory';

export async function main() {
  const api = inProcess(new MemoryDriver());
  const client = new Client(api);
  const worker = new Worker(api).register('reminder.send', ({ args: [text] }) => `sent: ${String(text)}`).start();

  // #region delay
  // Run no earlier than 200 ms from now (measured by the server's clock)…
  const soon = await client.enqueue('reminder.send', ['stretch'], { delay: 200 });
  // …or at a given time (a Date or RFC 3339 text).
  const tomorrow = new Date(Date.now() + 24 * 3_600_000);
  const later = await client.schedule('reminder.send', ['standup'], tomorrow);
  console.log(soon.state, later.state); // scheduled scheduled
  // #endregion delay

  // #region cron
  await client.cron.register({
    name: 'nightly-report',
    expression: '0 3 * * *', // 03:00 every day…
    timezone: 'Europe/Paris', // …Paris time
    job: { type: 'report.build', args: ['daily'], options: { queue: 'reports' } },
  });
  console.log((await client.cron.list()).map((c) => `${c.name} next at ${c.nextRunAt?.toISOString()}`));
  await client.cron.remove('nightly-report');
  // #endregion cron

  const ran = await client.waitFor(soon.id);
  await worker.close();
  await api.close();
  return { soon, later, ran, tomorrow };
}
