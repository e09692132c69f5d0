/** The SDK's worker and client contracts through the HTTP transport against a gateway over PostgreSQL. */
import { describeEachBackend, POSTGRES } from './support/backends.js';
import { runSdkContractsOverHttp } from './support/sdk-over-http.js';

describeEachBackend('SDK over HTTP', runSdkContractsOverHttp, [POSTGRES]);
