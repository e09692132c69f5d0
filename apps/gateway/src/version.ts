/** The gateway's package version (read at runtime so `src` and `dist` report the same). */
import { createRequire } from 'node:module';

export const GATEWAY_VERSION: string = (createRequire(import.meta.url)('../package.json') as { version: string }).version;
