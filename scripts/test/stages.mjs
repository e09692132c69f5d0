/**
 * What `pnpm test` runs: steps, each started as soon as the steps it names in `after` have passed, so steps
 * that neither read what the other writes run together. Package tests run from TypeScript sources (the
 * `@ojskit/source` condition) and start after the build for what they serve or spawn built (the playground's
 * bundle, the gateway's CLI); the consumer checks read
 * the packed builds; typecheck, lint, cycles and format read only sources, so they fill the cores while the
 * tests mostly wait on round trips. Each step works in its own directories, key prefixes and schemas.
 */

/**
 * Package tests that run at once (the `tests` pool); each package's vitest runs up to two files at a time itself.
 * Four since the Kafka steps came: with three, a CI run (2026-11-27, load 12-21 from other work beside it) took
 * 554 s, its four long steps (gateway-kafka 270 s, gateway 240, gateway-contract 227, kafka-suites 171) queued
 * behind each other and postgres started at 436 s.
 * Listed about longest first: steps start in this order as the pool frees, so the long ones start early and the
 * short ones fill the ends (turbo picked its own order and started the gateway's last). The gateway's suite is
 * three steps: its files on the Kafka backends (~260 s of file time under load), its other three HTTP contract
 * files (~200 s on a quiet 2-core machine) and the rest (~190 s, the chaos run and the SDK over HTTP); as one
 * step it was the run's critical path (230 s behind a 60 s build, before the Kafka files). The kafka package is
 * two: the rest (port, driver, faults: ~150 s of file time) and its shared suites (~150 s). Then playground,
 * redis and postgres (~60-90 s each), contract (~30), the rest (~5 each).
 */
// Back to three on 2026-11-27 evening: on a slower day (build 120-150 s against 55-63), three of four runs with
// four at once failed on timeouts and orderings under load (748-776 s), each in a different test.
export const POOLS = { tests: 3 };

const GATEWAY_CONTRACT = 'test/contract.http';
/** The gateway's files on the Kafka backends (`*.kafka-redis`, `*.kafka-postgres`, `pending.kafka`). */
const GATEWAY_KAFKA = 'kafka';
/** The kafka package's shared suites (`contract.*` and `driver-contract.*` on both stores). */
const KAFKA_SUITES = 'contract.';

/** [step name, package, vitest arguments after `run`]. */
const PACKAGE_TESTS = [
  // The gateway over the Kafka driver (HTTP contract and SDK contracts on both stores, ~260 s of file time
  // under load): its own step, as one with the other HTTP contract files it would be the run's critical path.
  ['gateway-kafka', '@ojskit/gateway', GATEWAY_KAFKA],
  ['gateway', '@ojskit/gateway', `--exclude '${GATEWAY_CONTRACT}*' --exclude 'test/*${GATEWAY_KAFKA}*'`],
  ['gateway-contract', '@ojskit/gateway', `${GATEWAY_CONTRACT} --exclude 'test/*${GATEWAY_KAFKA}*'`],
  // The kafka package in two: its shared suites (~150 s of file time) and the rest (port, faults: ~150 s).
  ['kafka-suites', '@ojskit/kafka', KAFKA_SUITES],
  // Not postgres beside the gateway's first files (its PostgreSQL contract and chaos run): the two on the shared
  // server at once took 132 s for a 21 s file.
  ['playground', '@ojskit/playground'],
  ['postgres', '@ojskit/postgres'],
  ['redis', '@ojskit/redis'],
  ['kafka', '@ojskit/kafka', `--exclude 'test/*${KAFKA_SUITES}*'`],
  ['contract', '@ojskit/contract'],
  ['client', '@ojskit/client'],
  ['core', '@ojskit/core'],
  ['memory', '@ojskit/memory'],
];

export const STEPS = [
  // A stale spec fails in seconds, before minutes of building: everything else waits for it.
  { name: 'spec:check', command: 'pnpm run spec:check', after: [] },
  { name: 'build', command: 'turbo run build', after: ['spec:check'] },
  // One step per package, after the build: one package's failure does not stop the others, so a run reports
  // every failing package.
  // OJSKIT_BUILT: the build step ran, so tests that run built code (the gateway's CLI test) need not build it.
  ...PACKAGE_TESTS.map(([name, pkg, args]) => ({
    name: `test:${name}`,
    command: args === undefined ? `pnpm --filter ${pkg} run test` : `pnpm --filter ${pkg} exec vitest run ${args}`,
    env: { OJSKIT_BUILT: '1' },
    after: ['build'],
    pool: 'tests',
  })),
  { name: 'consumer:check', command: 'pnpm run consumer:check', after: ['build'] },
  { name: 'first-hour', command: 'pnpm run first-hour', after: ['build'] },
  // One program for every Node package, one for the playground: see tsconfig.typecheck.json.
  { name: 'typecheck', command: 'tsc -p tsconfig.typecheck.json', after: ['spec:check'] },
  { name: 'typecheck:playground', command: 'tsc -p apps/playground/tsconfig.json --noEmit', after: ['spec:check'] },
  { name: 'lint', command: 'eslint .', after: ['spec:check'] },
  { name: 'cycles', command: 'pnpm run cycles', after: ['spec:check'] },
  { name: 'format', command: 'pnpm run format:check', after: ['spec:check'] },
];
