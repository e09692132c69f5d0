/** The backend contract suite through the HTTP transport, against a gateway over Redis. */
import { describeEachBackend, REDIS } from './support/backends.js';
import { runContractOverHttp } from './support/contract-over-http.js';

describeEachBackend('contract over HTTP', runContractOverHttp, [REDIS]);
