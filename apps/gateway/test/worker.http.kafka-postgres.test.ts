/** The SDK's worker and client contracts through the HTTP transport against a gateway over the Kafka driver with a PostgreSQL store. */
import { describeEachBackend } from './support/backends.js';
import { KAFKA_POSTGRES } from './support/kafka.js';
import { runSdkContractsOverHttp } from './support/sdk-over-http.js';

describeEachBackend('SDK over HTTP', runSdkContractsOverHttp, [KAFKA_POSTGRES]);
