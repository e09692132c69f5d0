/**
 * The backend contract suite through the HTTP transport, against a gateway over the Kafka driver with a PostgreSQL
 * store: part 2 of 2. Its cases mostly wait on the log and the store (about 1 s each under load), so the suite is
 * split across two files the runner takes at once; part 1 is contract.http.kafka-postgres-1.test.ts.
 */
import { describeEachBackend } from './support/backends.js';
import { runContractOverHttp } from './support/contract-over-http.js';
import { KAFKA_POSTGRES } from './support/kafka.js';

describeEachBackend('contract over HTTP', (backend) => runContractOverHttp(backend, { index: 2, of: 2 }), [KAFKA_POSTGRES]);
