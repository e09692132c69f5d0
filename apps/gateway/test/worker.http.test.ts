/** The SDK's worker and client contracts through the HTTP transport against a gateway over memory. */
import { describeEachBackend, MEMORY } from './support/backends.js';
import { runSdkContractsOverHttp } from './support/sdk-over-http.js';

describeEachBackend('SDK over HTTP', runSdkContractsOverHttp, [MEMORY]);
