/** @ojskit/postgres: the PostgreSQL (pg) driver for ojskit, its migrations and its event transport. */
export { PostgresDriver, type PostgresDriverOptions } from './postgres-driver.js';
export { createPostgresDriver, parsePostgresUrl, SESSION_SETTINGS, type CreatePostgresDriverOptions } from './factory.js';
export { migrate, DEFAULT_SCHEMA, type MigrateOptions, type MigrateResult } from './migrate.js';
export { PgEventTransport, packPayloads, packEvent, unpackEvent, MAX_PAYLOAD_BYTES } from './event-transport.js';

import { createPostgresDriver as create } from './factory.js';
/** The gateway backend registry's convention (`--backend postgres://…`): migrate, listen, return the driver. */
export const createDriverFromUrl = (url: string) => create(url);
