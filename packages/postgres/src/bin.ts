#!/usr/bin/env node
/** The `ojskit-postgres` executable (see cli.ts). */
import { main } from './cli.js';

process.exitCode = await main(process.argv.slice(2));
