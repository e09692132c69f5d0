/** The backend contract suite through the HTTP transport, against a gateway over the Kafka driver with a Redis store. */
import { describeEachBackend } from './support/backends.js';
import { runContractOverHttp } from './support/contract-over-http.js';
import { KAFKA_REDIS } from './support/kafka.js';

describeEachBackend('contract over HTTP', runContractOverHttp, [KAFKA_REDIS]);
