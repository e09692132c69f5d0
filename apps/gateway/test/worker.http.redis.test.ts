/** The SDK's worker and client contracts through the HTTP transport against a gateway over Redis. */
import { describeEachBackend, REDIS } from './support/backends.js';
import { runSdkContractsOverHttp } from './support/sdk-over-http.js';

describeEachBackend('SDK over HTTP', runSdkContractsOverHttp, [REDIS]);
