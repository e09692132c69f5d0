#!/usr/bin/env node
// The `ojskit-gateway` executable. A committed file rather than a path into dist/, so that package managers
// can link the bin on install, before anything is built; it runs the build output.
import '../dist/cli.js';
