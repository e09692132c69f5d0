/** Cron firer: enqueues each due cron occurrence exactly once across engines. */
import { fireDueCrons } from '../ops/cron.js';
import type { BackgroundService } from './service.js';

export const cronFirer: BackgroundService = {
  name: 'cron',
  intervalMs: (ctx) => ctx.settings.services.cronMs,
  run: fireDueCrons,
};
